/* test_fuzzworkerapi: the worker API fuzz target (tests/fuzz/fuzz_workerapi.c)
 * driven by seeded random bytes for a few seconds — make fuzz runs it under
 * libFuzzer. */
#include <criterion/criterion.h>

#include "../fuzz/fuzz_workerapi.c"

Test(fuzzworkerapi, seeded_random_calls_crash_leak_and_escape_nothing,
     .timeout = 120)
{
	uint64_t x = 20261201;
	uint8_t buf[512];
	double until = clock_now() + 8;
	int n = 0;

	if (geteuid() != 0)
		cr_skip_test("needs root: the file API's tests run as root");
	while (clock_now() < until) {
		size_t len = 1 + (size_t)(x >> 33) % sizeof(buf);

		for (size_t i = 0; i < len; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			buf[i] = (uint8_t)(x >> 56);
		}
		LLVMFuzzerTestOneInput(buf, len);
		n++;
	}
	fuzz_workerapi_cleanup();
	cr_expect_gt(n, 20, "only %d inputs in 8 s", n);
}

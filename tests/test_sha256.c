/* test_sha256: the digest against FIPS 180-4's examples, whole and in parts. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "util/sha256.h"
#include "util/sha256ni.h"

/* The digest of text given in parts of `part` bytes. */
static void in_parts(const char *text, size_t len, size_t part, char hex[65])
{
	struct sha256_ctx s;

	sha256_init(&s);
	for (size_t i = 0; i < len; i += part)
		sha256_update(&s, text + i, len - i < part ? len - i : part);
	sha256_final(&s, hex);
}

Test(sha256, fips_examples_whole_and_in_parts)
{
	static const char two[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklm"
				  "nlmnomnopnopq";
	static const size_t parts[] = { 1, 3, 63, 64, 65, 1000, 1 << 20 };
	size_t n = 1000000;
	char *million = malloc(n), hex[65];

	cr_assert_not_null(million);
	memset(million, 'a', n);
	sha256_hex("abc", 3, hex);
	cr_expect_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a"
			 "9cb410ff61f20015ad");
	sha256_hex(two, strlen(two), hex);
	cr_expect_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff21"
			 "67f6ecedd419db06c1");
	sha256_hex("", 0, hex);
	cr_expect_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b93"
			 "4ca495991b7852b855");
	/* whole blocks go to the SHA extensions where the CPU has them,
	 * the rest to the portable rounds: every split gives one digest */
	for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
		in_parts(million, n, parts[k], hex);
		cr_expect_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a"
				 "48a497200e046d39ccc7112cd0", "parts of %zu "
				 "(extensions: %d)", parts[k], sha256ni_have());
	}
	free(million);
}

/* test_devclaim: a claim on a device excludes every other claim on it, its disk
 * or its partition, and names its holder. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "host/devclaim.h"
#include "host/target.h"

/* Device numbers no machine has (the last major): the lock files are
 * only files; disk D with partitions P1 and P2. */
#define D	makedev(4095, 1000)
#define P1	makedev(4095, 1001)
#define P2	makedev(4095, 1002)

static void unlink_locks(void)
{
	char path[128];

	for (int i = 1000; i <= 1002; i++) {
		snprintf(path, sizeof(path), "%s/dev-4095:%d.lock",
			 FSPLAN_RUNTIME_DIR, i);
		unlink(path);
	}
}

static void setup(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: the claims are in %s",
			     FSPLAN_RUNTIME_DIR);
	unlink_locks();
}

TestSuite(devclaim, .init = setup, .fini = unlink_locks);

/* A second claim in this process is another open file: flock refuses
 * it as it would another run's. */
static int take(struct devclaim *c, dev_t dev, dev_t disk, const char *rd,
		char *why)
{
	struct diag d = { 0 };
	int rc = devclaim_take(c, dev, disk, rd, getpid(), &d);

	snprintf(why, 1024, "%s", d.msg);
	return rc;
}

Test(devclaim, a_claim_excludes_its_device_its_disk_not_a_sibling)
{
	struct devclaim a, b;
	char why[1024], want[64];

	cr_assert_eq(take(&a, P1, D, "/runs/a", why), 0, "%s", why);
	snprintf(want, sizeof(want), "fsplan run /runs/a (pid %d)",
		 (int)getpid());
	cr_expect_eq(take(&b, P1, D, "/runs/b", why), 1);
	cr_expect_str_eq(why, want);
	cr_expect_eq(take(&b, D, D, "/runs/b", why), 1, "the disk of a "
		     "claimed partition");
	cr_expect_str_eq(why, want);
	cr_assert_eq(take(&b, P2, D, "/runs/b", why), 0, "a sibling: %s",
		     why);
	devclaim_release(&b);
	devclaim_release(&a);
	cr_assert_eq(take(&a, D, D, "/runs/a", why), 0, "%s", why);
	cr_expect_eq(take(&b, P2, D, "/runs/b", why), 1, "a partition of "
		     "a claimed disk");
	cr_expect_str_eq(why, want);
	devclaim_release(&a);
	cr_expect_eq(a.fd, -1);
	cr_assert_eq(take(&b, P2, D, "/runs/b", why), 0, "released: %s",
		     why);
	devclaim_release(&b);
}

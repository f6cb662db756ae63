/* test_devword: which words of mkfs and mount options name a device, however
 * they are written. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "host/fs.h"
#include "plan/devword.h"

/* The word devword_text finds in opts, or NULL (static). */
static const char *text_word(const char *opts, int mount, size_t *off)
{
	static char word[256];
	struct devword w;
	int rc = devword_find(opts, mount, devword_text, NULL, &w);

	cr_assert_geq(rc, 0);
	if (!rc)
		return NULL;
	snprintf(word, sizeof(word), "%s", w.word);
	*off = w.off;
	devword_free(&w);
	return word;
}

Test(devword, paths_under_dev_however_written)
{
	static const struct {
		const char *opts, *word;
		size_t off;
	} mkfs[] = {
		{ "-f /dev/loop2", "/dev/loop2", 3 },
		{ "-f '/dev/loop2'", "/dev/loop2", 3 },
		{ "-f \"/dev/\"loop2", "/dev/loop2", 3 },
		{ "-f //dev/loop2", "//dev/loop2", 3 },
		{ "-f /./dev/loop2", "/./dev/loop2", 3 },
		{ "-f /../dev/loop2", "/../dev/loop2", 3 },
		{ "-d/dev/sda", "/dev/sda", 2 },
		{ "-l logdev=/dev/x,size=64m", "logdev=/dev/x", 3 },
		{ "-l size=64m,/dev/x", "/dev/x", 12 },
		{ "-J device=UUID=1234", "device=UUID=1234", 3 },
		{ "-Jdevice=/x", "device=/x", 2 },
		{ "-r rtdev=/x", "rtdev=/x", 3 },
		{ "-d file,name=/srv/x.img", "name=/srv/x.img", 8 },
		{ "--rootdir=/dev", "--rootdir=/dev", 0 },
	};
	size_t off;

	for (size_t i = 0; i < sizeof(mkfs) / sizeof(mkfs[0]); i++) {
		const char *w = text_word(mkfs[i].opts, 0, &off);

		cr_expect(w && !strcmp(w, mkfs[i].word), "%s: %s",
			  mkfs[i].opts, w ? w : "(none)");
		cr_expect_eq(off, mkfs[i].off, "%s: offset %zu",
			     mkfs[i].opts, off);
	}
	cr_expect_str_eq(text_word("noatime,journal_path=/x", 1, &off),
			 "journal_path=/x");
	cr_expect_eq(off, 8);
	cr_expect_str_eq(text_word("journal_dev=1792", 1, &off),
			 "journal_dev=1792");
	cr_expect_str_eq(text_word("device=/dev/sdb,noatime", 1, &off),
			 "device=/dev/sdb");
	cr_expect_str_eq(text_word("subvol=\"/dev/x\"", 1, &off),
			 "subvol=\"/dev/x\"");
}

Test(devword, other_words_pass)
{
	static const char *const mkfs[] = {
		"", "-f", "-I 128 -J size=16", "-d /srv/dev/tree",
		"-L dev", "-f -l size=64m", "-O ^has_journal",
		"-E root_owner=0:0",
		"-m crc=1,finobt=1", "${dev}", "-d dev/x",
	};
	static const char *const mount[] = {
		"", "noatime,data=writeback", "logbufs=8,logbsize=32k",
		"subvol=/dev-tree", "size=2G,mode=0755",
	};
	size_t off;

	for (size_t i = 0; i < sizeof(mkfs) / sizeof(mkfs[0]); i++)
		cr_expect_null(text_word(mkfs[i], 0, &off), "mkfs %s",
			       mkfs[i]);
	for (size_t i = 0; i < sizeof(mount) / sizeof(mount[0]); i++)
		cr_expect_null(text_word(mount[i], 1, &off), "mount %s",
			       mount[i]);
}

/* The last look, in fs_mkfs and fs_mount: nothing runs. */
Test(devword, mkfs_and_mount_refuse_a_device_themselves)
{
	volatile sig_atomic_t stop = 0;
	struct diag d = { 0 };
	struct devword w;

	cr_assert_eq(fs_mkfs("ext4", "-J device=/dev/null", "/nonexistent",
			     0, &stop, -1, &d), -1);
	cr_expect(strstr(d.msg, "mkfs option 'device=/dev/null' names a "
			 "device of its own"), "%s", d.msg);
	cr_expect_eq(d.kind, DIAG_REFUSED);
	cr_assert_eq(fs_mount("xfs", "logdev=/dev/null", "/nonexistent",
			      "/nonexistent", &d), -1);
	cr_expect(strstr(d.msg, "mount option 'logdev=/dev/null'"), "%s",
		  d.msg);
	/* and a path that leads to one: /dev/null is a character device,
	 * the root filesystem's device node (if any) a block device */
	cr_expect_eq(fs_device_word("-f ../../../../../../../../proc/self/cwd",
				    0, &w), 0);
	devword_free(&w);
}

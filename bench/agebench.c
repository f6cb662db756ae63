/* agebench: age_run on a directory, for bench/agecost.sh and by hand. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/age.h"

/*
 * agebench DIR FILL CHURN SEED: age DIR (on the filesystem to age) and
 * print what age_done holds, "name value" a line. A failure prints the
 * message and exits 1.
 */
int main(int argc, char **argv)
{
	struct age_spec spec = { 0 };
	struct age_done done;
	struct diag d = { 0 };

	if (argc != 5) {
		fprintf(stderr, "usage: agebench DIR FILL CHURN SEED\n");
		return 2;
	}
	spec.fill = strtod(argv[2], NULL);
	spec.churn = strtod(argv[3], NULL);
	spec.seed = strtoull(argv[4], NULL, 0);
	if (age_run(argv[1], &spec, &done, &d)) {
		diag_print(&d);
		diag_release(&d);
		return 1;
	}
	printf("seconds %.3f\nfiles %llu\ndirs %llu\nbytes_written %llu\n"
	       "fill_bytes %llu\nops %llu\nrounds %d\nfull %d\n"
	       "trace_sha256 %s\n", done.seconds,
	       (unsigned long long)done.files, (unsigned long long)done.dirs,
	       (unsigned long long)done.bytes_written,
	       (unsigned long long)done.fill_bytes,
	       (unsigned long long)done.ops, done.rounds, done.full,
	       done.trace_sha256);
	return 0;
}

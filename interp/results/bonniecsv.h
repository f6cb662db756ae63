/* bonniecsv: bonnie++ 2.00a CSV lines (format 1.98) from a phase run's metrics.
 */
#ifndef FSPLAN_BONNIECSV_H
#define FSPLAN_BONNIECSV_H

#include <stddef.h>

/*
 * The metrics a bonnie-style phase run reports (lua/bonnie.lua through
 * report(), lua/parse/bonnie.lua from the real bonnie++'s output), named
 * after bonnie++'s CSV fields (../shared/reference/bonnie-csv.md):
 *
 *   bonnie_line       1: this phase run gets a line in bonnie.csv
 *   concurrency       -c (1)
 *   seed              the random seed
 *   file_size_mib     the test file's size in MiB (absent: IO tests off)
 *   seeks_count       seeks asked for (8192), seek_procs (5)
 *   num_files         -n in units of 1024 (absent: file tests off)
 *   max_size, min_size, num_dirs   file-test shape (absent when 0)
 *   max_size_link     1 for -n N:-1 ("link"), 2 for -n N:-2 ("symlink")
 *
 * and for each test T of putc, put_block, rewrite, getc, get_block,
 * seeks, seq_create, seq_stat, seq_del, ran_create, ran_stat, ran_del:
 *
 *   T                 the rate: K/sec (KiB/s) for IO, seeks/s, files/s
 *   T_cpu             %CPU of the test
 *   T_latency_us      the longest single op, in microseconds
 *   T_fast            1 when the test ran under 0.5 s: the line shows
 *                     "+++++" and "+++" as bonnie++ does (T may be absent)
 *
 * A test whose T and T_fast are both absent was not run: empty fields.
 */
struct bonnie_metric {
	const char *name;
	double value;
};

/*
 * The 50-field line for one phase run, without a newline: name is the
 * filesystem label (field 2; commas are replaced, the converters split
 * on them). Returns the line's length, or -1 if buf is too small or the
 * metrics do not ask for a line (no bonnie_line).
 */
int bonniecsv_line(const char *name, const struct bonnie_metric *m, size_t n,
		   char *buf, size_t len);

/* int(v) as bonnie++ writes a rate or a %CPU: toward zero, clamped. */
long long bonniecsv_whole(double v);

/* A character of a line's name field as bonniecsv_line writes it: the
 * converters split on every comma and end the line at CR or LF, so ','
 * is ';' ("ext4,noatime" still reads as a list) and CR, LF a space. */
char bonniecsv_name_char(char c);

/* "%dus" under 0.1 s, "%dms" under 100 s, else "%ds"; "" for 0. */
void bonniecsv_latency(double us, char *buf, size_t len);

#endif

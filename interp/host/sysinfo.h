/* sysinfo: the facts about this machine a manifest records. */
#ifndef FSPLAN_SYSINFO_H
#define FSPLAN_SYSINFO_H

#include <jansson.h>

/*
 * A JSON object: kernel (uname -srvm), distribution (os-release
 * PRETTY_NAME), cpu_model, cores, mem_bytes, hostname, and tools: the
 * first line that `mkfs.ext4 -V`, `mkfs.xfs -V`, `mkfs.btrfs --version`,
 * `mount --version`, fio/bonnie++/dbench (where installed) print, each
 * run without a shell, with a timeout. Missing facts are null, not errors.
 */
json_t *sysinfo_collect(void);

/* The first line a command prints (stdout+stderr), or NULL. */
char *sysinfo_tool_version(const char *const argv[]);

#endif

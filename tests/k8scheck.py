# k8scheck: examples/scale-out/k8s-indexed-job.yaml holds together as the
# Kubernetes API reads it (no cluster here): an indexed batch/v1 Job whose
# pods run shard JOB_COMPLETION_INDEX + 1 of SHARDS = completions,
# privileged, results on a hostPath. tests/scaleout.sh k8s runs it.
#   python3 tests/k8scheck.py MANIFEST
import sys

import yaml

job = yaml.safe_load(open(sys.argv[1]))
spec = job["spec"]
pod = spec["template"]["spec"]
c = pod["containers"][0]
env = {e["name"]: e["value"] for e in c.get("env", [])}
script = " ".join(c.get("command", []) + c.get("args", []))
mounts = {m["name"]: m["mountPath"] for m in c.get("volumeMounts", [])}
host_paths = [v["name"] for v in pod.get("volumes", []) if "hostPath" in v]

checks = {
    "a batch/v1 Job": job["apiVersion"] == "batch/v1" and job["kind"] == "Job",
    "completionMode is Indexed": spec.get("completionMode") == "Indexed",
    "SHARDS is completions": int(env.get("SHARDS", -1)) == spec["completions"],
    "parallelism is completions": spec.get("parallelism") == spec["completions"],
    "the pod is privileged": c["securityContext"]["privileged"] is True,
    "shard JOB_COMPLETION_INDEX + 1 of SHARDS":
        "$((JOB_COMPLETION_INDEX + 1))" in script
        and '--shard "$k/$SHARDS"' in script,
    "the run directory is on a hostPath":
        any(name in mounts and "-o \"" + mounts[name] + "/" in script
            for name in host_paths),
    "pods are not restarted": pod.get("restartPolicy") == "Never",
}
bad = [what for what, ok in checks.items() if not ok]
for what in bad:
    print("%s: not so: %s" % (sys.argv[1], what), file=sys.stderr)
sys.exit(1 if bad else 0)

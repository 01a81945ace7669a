# Replaces the accounting entries of init/Kconfig, from TASKSTATS up to the
# entry that follows TASK_IO_ACCOUNTING, with a source of ours.
set -e
python3 - <<'PY'
p = 'init/Kconfig'
s = open(p).read()
start = s.index('config TASKSTATS\n')
end = s.index('config ', s.index('config TASK_IO_ACCOUNTING\n') + 1)
open(p, 'w').write(s[:start] + 'source "kernel/Kconfig.taskstats"\n\n' + s[end:])
PY

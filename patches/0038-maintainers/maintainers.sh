# Replaces upstream's two entries (delay accounting, taskstats) with the
# repository's MAINTAINERS entry, at its place in alphabetical order.
set -e
python3 - "$RIG/MAINTAINERS" <<'PY'
import sys
ours = open(sys.argv[1]).read().rstrip('\n') + '\n'
p = 'MAINTAINERS'
s = open(p).read()
head, sep, body = s.partition('\n\n3C59X NETWORK DRIVER\n')
sections = ('3C59X NETWORK DRIVER\n' + body).split('\n\n')
gone = ('PER-TASK DELAY ACCOUNTING\n', 'TASKSTATS STATISTICS INTERFACE\n')
sections = [x for x in sections if not x.startswith(gone)]
title = ours.split('\n', 1)[0]
at = next(i for i, x in enumerate(sections) if x.split('\n', 1)[0].upper() > title.upper())
sections.insert(at, ours.rstrip('\n'))
open(p, 'w').write(head + sep[:2] + '\n\n'.join(sections))
PY

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The family's YAML spec against the ABI and the kernel, and clients
written for any generic netlink family against the kernel.

The spec (Documentation/netlink/specs/taskstats.yaml) must say what the
ABI says: its struct taskstats lays out every field of the ABI table
(abi_fields.h, the oracle of abi_test) at the same offset with the same
size and name; its attribute sets have the values of the uapi enums;
its request attributes have the types and the range of the kernel's own
policy, as the kernel reports it (CTRL_CMD_GETPOLICY).

Then two clients that know nothing of this family's history read it as
they read any family: the kernel's ynl CLI driven by the spec (a GET of
pid 1, and a dump), and pyroute2's TaskStats (a GET, and a dump read
message by message with get_attr()). A dump must list every task of
/proc exactly once.

It finds the spec, the headers, ynl and the ABI table in the kernel
tree it lies in, or, installed (make install, kselftest-install), in
the copies of them the selftests' Makefile put beside it (spec_files/);
$KERNEL_TREE names another tree. Without any, it skips. What the kernel
supports it asks the kernel (CTRL_CMD_GETFAMILY, CTRL_CMD_GETPOLICY).
Prints TAP; exits 1 on a failure, 4 when it skipped everything.
"""

import functools

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC_PATH = 'Documentation/netlink/specs/taskstats.yaml'
NEEDS = (SPEC_PATH, 'Documentation/netlink/specs/nlctrl.yaml',
         'tools/net/ynl/cli.py', 'include/uapi/linux/taskstats.h')


def find_tree():
    """$KERNEL_TREE, the tree this file lies in, or the copies beside it."""
    for tree in (os.environ.get('KERNEL_TREE'),
                 os.path.normpath(os.path.join(HERE, '..', '..', '..', '..')),
                 os.path.join(HERE, 'spec_files')):
        if tree and all(os.path.exists(os.path.join(tree, f)) for f in NEEDS):
            return tree
    return None


TREE = find_tree() or os.path.normpath(os.path.join(HERE, '..', '..', '..', '..'))
SPEC = os.path.join(TREE, SPEC_PATH)
NLCTRL = os.path.join(TREE, 'Documentation/netlink/specs/nlctrl.yaml')
YNL = os.path.join(TREE, 'tools/net/ynl')
UAPI = os.path.join(TREE, 'include/uapi/linux')
EOPNOTSUPP = 95

sys.path.insert(0, YNL)


class Skip(Exception):
    pass


# ------------------------------------------------------------------ spec

def load_spec():
    import yaml
    with open(SPEC) as f:
        return yaml.safe_load(f)


def struct_layout(spec, name):
    """(name, offset, size) of every member, laid out as ynl lays them."""
    sizes = {'u8': 1, 'u16': 2, 'u32': 4, 'u64': 8,
             's8': 1, 's16': 2, 's32': 4, 's64': 8}
    for d in spec['definitions']:
        if d['name'] == name and d['type'] == 'struct':
            break
    else:
        raise AssertionError(f'the spec has no struct {name}')
    layout, off = [], 0
    for m in d['members']:
        size = m['len'] if m['type'] == 'binary' else sizes[m['type']]
        layout.append((m['name'], off, size))
        off += size
    return layout, off


def abi_table():
    fields = []
    with open(os.path.join(TREE, 'tools/testing/selftests/taskstats/abi_fields.h')) as f:
        for line in f:
            m = re.match(r'FIELD\((\w+), (\d+), (\d+), (\d+)\)', line)
            if m:
                fields.append((m.group(1), int(m.group(2)), int(m.group(3))))
    assert fields, 'abi_fields.h holds no FIELD() line'
    return fields


def uapi_text(header):
    with open(os.path.join(UAPI, header)) as f:
        return re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)


def uapi_enums(*headers):
    """Every enumerator of the headers' enums, by name, with its value."""
    text = ''.join(uapi_text(h) for h in headers)
    values = {}
    for body in re.findall(r'enum\s*\{(.*?)\}', text, flags=re.S):
        value = -1
        for item in body.split(','):
            item = item.strip()
            if not item:
                continue
            name, _, expr = item.partition('=')
            name, expr = name.strip(), expr.strip()
            value = values[expr] if expr in values else \
                int(expr, 0) if expr else value + 1
            values[name] = value
    return values


def attr_values(attr_set):
    """Name and value of each attribute of a spec attribute set."""
    out, value = [], 0
    for a in attr_set['attributes']:
        value = a.get('value', value)
        out.append((a['name'], value, a['type']))
        value += 1
    return out


def c_name(prefix, name):
    return (prefix + name).upper().replace('-', '_')


def spec_struct_lays_out_every_abi_field_where_the_header_has_it():
    layout, size = struct_layout(load_spec(), 'taskstats')
    fields = [(n.replace('-', '_'), o, s) for n, o, s in layout
              if not n.startswith('pad-after-')]
    table = abi_table()
    assert fields == table, \
        f'spec and ABI table differ first at {next(((a, b) for a, b in zip(fields, table) if a != b), (fields[len(table):], table[len(fields):]))}'
    end = table[-1][1] + table[-1][2]
    assert size == end, f'the spec struct is {size} bytes, the ABI {end}'
    # The pads fill exactly the gaps the compiler leaves.
    for (n, o, s), nxt in zip(layout, layout[1:]):
        assert o + s == nxt[1], f'{n} overlaps or leaves a gap before {nxt[0]}'


def spec_cgroupstats_is_the_headers_struct():
    layout, size = struct_layout(load_spec(), 'cgroupstats')
    with open(os.path.join(UAPI, 'cgroupstats.h')) as f:
        text = f.read()
    body = re.search(r'struct cgroupstats \{(.*?)\};', text, flags=re.S).group(1)
    names = re.findall(r'__u64\s+(\w+);', body)
    assert [(n.replace('-', '_'), o, s) for n, o, s in layout] == \
        [(n, 8 * i, 8) for i, n in enumerate(names)], 'struct cgroupstats differs'


def spec_attribute_values_are_the_uapi_enums():
    spec = load_spec()
    enums = uapi_enums('taskstats.h', 'cgroupstats.h')
    for s in spec['attribute-sets']:
        for name, value, _ in attr_values(s):
            cname = c_name(s['name-prefix'], name)
            assert cname in enums, f'{cname} is not in the uapi headers'
            assert enums[cname] == value, \
                f'{cname} is {enums[cname]} in the header, {value} in the spec'
        # ... and every enumerator of the header's enum is in the spec.
        prefix = s['name-prefix'].upper().replace('-', '_')
        known = {c_name(s['name-prefix'], n) for n, _, _ in attr_values(s)}
        for cname in enums:
            if cname.startswith(prefix) and not cname.startswith(prefix + 'MAX') \
               and not cname.startswith('__') and cname not in known:
                raise AssertionError(f'{cname} of the header is not in the spec')
    ops = {}
    for op in spec['operations']['list']:
        for mode in ('do', 'dump'):
            v = op.get(mode, {}).get('request', {}).get('value')
            if v is not None:
                ops[op['name']] = v
    assert ops['get'] == enums['TASKSTATS_CMD_GET']
    assert ops['cgroupstats-get'] == enums['CGROUPSTATS_CMD_GET']


# ----------------------------------------------------------------- kernel

@functools.lru_cache(maxsize=None)
def kernel_dumps():
    """Whether the kernel's TASKSTATS family can dump, as it says itself:
    its GET command carries cmd-cap-dump in CTRL_CMD_GETFAMILY's list of
    operations. Linux 6.12's own implementation has none."""
    from lib import YnlFamily
    family = YnlFamily(NLCTRL).do('getfamily', {'family-name': 'TASKSTATS'})
    # An indexed array: [{index: {'id': ..., 'flags': {...}}}, ...].
    for entry in family.get('ops', []):
        for op in entry.values():
            if op.get('id') == 1:
                return 'cmd-cap-dump' in op.get('flags', ())
    raise AssertionError(f'the TASKSTATS family lists no GET: {family}')


def kernel_policy():
    """{command: {attribute: type}} of TASKSTATS, as the kernel reports it."""
    from lib import YnlFamily
    reply = YnlFamily(NLCTRL).dump('getpolicy', {'family-name': 'TASKSTATS'})
    op_policy, policies = {}, {}
    for msg in reply:
        if 'op-policy' in msg:
            p = msg['op-policy']
            op_policy[p['op-id']] = p.get('do', p.get('dump'))
        if 'policy' in msg:
            p = msg['policy']
            policies.setdefault(p['policy-id'], {})[p['attr-id']] = p['type']
    return {op: policies.get(pid, {}) for op, pid in op_policy.items()}


def spec_request_attributes_are_the_kernels_policy():
    spec = load_spec()
    policy = kernel_policy()
    dumps = kernel_dumps()
    sets = {s['name']: s for s in spec['attribute-sets']}
    for set_name, cmd in (('cmd', 1), ('cgroupstats-cmd', 4)):
        # A kernel without the dump (6.12's own) has no cgroup ids either.
        want = {v: t for n, v, t in attr_values(sets[set_name])
                if t != 'unused' and (dumps or not (n.startswith('dump-') or
                                                    n == 'cgroup-id'))}
        assert policy.get(cmd) == want, \
            f'command {cmd}: the kernel\'s policy is {policy.get(cmd)}, the spec\'s {want}'


def ynl(*args):
    out = subprocess.run([sys.executable, os.path.join(YNL, 'cli.py'),
                          '--spec', SPEC, '--output-json', *args],
                         capture_output=True, text=True, timeout=120)
    if out.returncode:
        if 'error: -95' in out.stdout + out.stderr and not kernel_dumps():
            raise Skip('this kernel cannot dump (EOPNOTSUPP)')
        raise AssertionError(f'ynl {" ".join(args)} failed: {out.stdout}{out.stderr}')
    return json.loads(out.stdout)


def comm(raw):
    return bytes.fromhex(raw).split(b'\0')[0].decode()


def proc_comm(pid):
    with open(f'/proc/{pid}/comm') as f:
        return f.read().strip()


def header_version():
    return int(re.search(r'#define TASKSTATS_VERSION\s+(\d+)',
                         uapi_text('taskstats.h')).group(1))


def ynl_get_of_pid_1_prints_its_record_by_field_name():
    try:
        rec = ynl('--do', 'get', '--json', '{"pid": 1}')['aggr-pid']
    except AssertionError as e:
        # ynl decodes a fixed struct only whole: a kernel whose record
        # is an older, shorter version than the spec's cannot be read.
        if not kernel_dumps() and 'unpack_from requires a buffer' in str(e):
            raise Skip('this kernel\'s struct taskstats is shorter than the '
                       'spec\'s (version 17): ynl decodes a fixed struct '
                       'only whole') from e
        raise
    stats = rec['stats']
    assert rec['pid'] == 1 and stats['ac-pid'] == 1, rec
    # A kernel with the dump fills the header's version; another its own.
    want = header_version()
    assert stats['version'] == want or \
        (not kernel_dumps() and 1 <= stats['version'] < want), stats['version']
    assert comm(stats['ac-comm']) == proc_comm(1), stats['ac-comm']
    assert stats['ac-ppid'] == 0 and stats['ac-tgid'] == 1


def tasks():
    """Every thread of /proc."""
    out = set()
    for p in os.listdir('/proc'):
        if p.isdigit():
            try:
                out |= {int(t) for t in os.listdir(f'/proc/{p}/task')}
            except FileNotFoundError:
                pass
    return out


def every_task_once(ids):
    before = tasks()
    got = ids()
    survivors = before & tasks()
    seen = {}
    for pid in got:
        seen[pid] = seen.get(pid, 0) + 1
    twice = [p for p, n in seen.items() if n > 1]
    missing = survivors - set(seen)
    assert not twice, f'listed more than once: {twice}'
    assert not missing, f'not listed: {sorted(missing)}'
    assert len(got) >= len(survivors) > 1


def ynl_dump_lists_every_task_once():
    every_task_once(lambda: [m['aggr-pid']['pid']
                             for m in ynl('--dump', 'get')])


def pyroute2():
    try:
        from pyroute2 import TaskStats
    except ImportError:
        raise Skip('pyroute2 is not installed (python3-pyroute2)')
    ts = TaskStats()
    ts.bind()
    return ts


def pyroute2_get_pid_stat_reads_pid_1():
    ts = pyroute2()
    try:
        msg = ts.get_pid_stat(1)[0]
    finally:
        ts.close()
    aggr = msg.get_attr('TASKSTATS_TYPE_AGGR_PID')
    stats = aggr.get_attr('TASKSTATS_TYPE_STATS')
    assert aggr.get_attr('TASKSTATS_TYPE_PID') == 1
    assert stats['ac_pid'] == 1 and stats['ac_comm'] == proc_comm(1), stats


def pyroute2_dump_read_message_by_message_sees_every_task_once():
    ts = pyroute2()
    from pyroute2.netlink import NLM_F_DUMP, NLM_F_REQUEST
    from pyroute2.netlink.exceptions import NetlinkError
    from pyroute2.netlink.taskstats import TASKSTATS_CMD_GET, tcmd

    def ids():
        msg = tcmd()
        msg['cmd'] = TASKSTATS_CMD_GET
        msg['version'] = 1
        try:
            reply = ts.nlm_request(msg, ts.prid,
                                   msg_flags=NLM_F_REQUEST | NLM_F_DUMP)
        except NetlinkError as e:
            if e.code == EOPNOTSUPP and not kernel_dumps():
                raise Skip('this kernel cannot dump (EOPNOTSUPP)')
            raise
        return [m.get_attr('TASKSTATS_TYPE_AGGR_PID')
                 .get_attr('TASKSTATS_TYPE_PID') for m in reply]
    try:
        every_task_once(ids)
    finally:
        ts.close()


TESTS = [
    spec_struct_lays_out_every_abi_field_where_the_header_has_it,
    spec_cgroupstats_is_the_headers_struct,
    spec_attribute_values_are_the_uapi_enums,
    spec_request_attributes_are_the_kernels_policy,
    ynl_get_of_pid_1_prints_its_record_by_field_name,
    ynl_dump_lists_every_task_once,
    pyroute2_get_pid_stat_reads_pid_1,
    pyroute2_dump_read_message_by_message_sees_every_task_once,
]

# Those that need no kernel: the spec against the files of the tree.
OFFLINE = TESTS[:3]


def main():
    tests = OFFLINE if '--offline' in sys.argv else TESTS
    failed = 0
    print('TAP version 13')
    try:
        import yaml  # noqa: F401
        import jsonschema  # noqa: F401
    except ImportError as e:
        print(f'1..0 # SKIP python module {e.name} is not installed '
              '(Debian: python3-yaml, python3-jsonschema)')
        return 4
    if not find_tree() or not os.path.isdir(YNL):
        print(f'1..0 # SKIP neither a kernel tree with the spec and ynl at {TREE} '
              f'nor their copies in {os.path.join(HERE, "spec_files")} '
              '(make install puts them there; or set KERNEL_TREE)')
        return 4
    print(f'1..{len(tests)}')
    for i, test in enumerate(tests, 1):
        name = test.__name__
        try:
            test()
            print(f'ok {i} spec.{name}')
        except Skip as e:
            print(f'ok {i} spec.{name} # SKIP {e}')
        except Exception as e:
            failed += 1
            for line in str(e).splitlines() or [type(e).__name__]:
                print(f'# {line}')
            print(f'not ok {i} spec.{name}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

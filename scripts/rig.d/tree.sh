# SPDX-License-Identifier: GPL-2.0
#
# Sourced by scripts/rig: the base tree, the series made from the overlay and patches/, its import and its checks (make tree, import, series, checkpatch).
# shellcheck shell=bash disable=SC2154,SC2153

# ---------------------------------------------------------------- tree
# The identity of the base: where it came from and which version it is.
base_origin() {
	if [[ -n $KSRC ]]; then
		echo "ksrc:$(cd "$KSRC" && pwd)"
	else
		echo "tarball:$TARBALL:$(stat -c %s:%Y "$TARBALL")"
	fi
}

check_612() {
	local mk=$1/Makefile v p
	[[ -f $mk ]] || die "$1: no Makefile: not a kernel tree (set KSRC to a Linux v6.12.y tree)"
	v=$(sed -n 's/^VERSION = //p' "$mk" | head -1)
	p=$(sed -n 's/^PATCHLEVEL = //p' "$mk" | head -1)
	[[ $v.$p == 6.12 ]] || die "$1 is Linux $v.$p, not 6.12: set KSRC to a v6.12.y tree"
}

make_base() {
	local origin tmp
	origin=$(base_origin)
	if [[ -f $SRC/base.origin && $(cat "$SRC/base.origin") == "$origin" ]] &&
	   git_base rev-parse -q --verify base >/dev/null 2>&1; then
		return 0
	fi
	say "creating the base tree from ${origin%%:*} (${KSRC:-$TARBALL})"
	rm -rf "$SRC"
	mkdir -p "$SRC"
	tmp=$SRC/extract
	mkdir -p "$tmp"
	if [[ -n $KSRC ]]; then
		check_612 "$KSRC"
		rsync -a --exclude=/.git "$KSRC"/ "$SRC/linux"/
	else
		[[ -f $TARBALL ]] || die "$TARBALL missing: run 'make deps'"
		tar -xJf "$TARBALL" -C "$tmp"
		mv "$tmp"/linux-source-6.12 "$SRC/linux"
	fi
	rmdir "$tmp"
	check_612 "$SRC/linux"
	# Debian's .gitignore ignores most of the top level: add with force.
	git_base init -q
	git_base config user.name "$(sign_name)"
	git_base config user.email "$(sign_email)"
	git_base config gc.auto 0
	git_base add -f -A .
	git_base commit -q -m "base: $(head -5 "$SRC/linux/Makefile" | sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = //p' | paste -sd.)"
	git_base tag base
	echo "$origin" >"$SRC/base.origin"
}

sign_name() { git -C "$RIG" config user.name 2>/dev/null || echo "Taskstats Developers"; }
sign_email() { git -C "$RIG" config user.email 2>/dev/null || echo "taskstats@localhost"; }

worktree() {
	local dir=$SRC/$1
	if [[ ! -e $dir/.git ]]; then
		git_base worktree prune
		git_base worktree add -q --detach "$dir" base
	fi
}

# Overlay files: everything we wrote in kernel-tree layout, plus the
# top-level Kconfig and MAINTAINERS that hook diffs may place.
overlay_files() {
	(cd "$RIG" && git ls-files --cached --others --exclude-standard -- $OVERLAY_DIRS)
}

# patches/NNNN-slug/ is one logical change:
#   message   commit message (subject line, blank line, body)
#   files     overlay paths (files or directories) the change installs,
#             one a line; "SRC -> DEST" installs SRC at DEST in the tree
#   remove    upstream paths the change deletes (our version replaces them)
#   *.diff    diffs applied with git apply, in name order: hook diffs to
#             files we do not own, and later steps of files we own (a diff
#             whose target an earlier patch installed; its context is our
#             own code)
#   *.sh      edits of files we do not own that would otherwise carry
#             upstream text in a diff (run in the tree, RIG set to the repo)
#   boot      (empty) make check-bisect boots this step and runs the suite
#
# The overlay is the final state of our files. A patch that installs a
# file which later patches change by diff installs the overlay's version
# with those later diffs taken back (git apply -R, newest first): each
# step's version exists only as the difference from the next. The series
# is refused when a later diff no longer takes back cleanly (the overlay
# was edited where that step changes it: refresh it with `make import`
# after editing the step in build/src/stage), or when the staged tree
# does not end at the overlay.
patch_dirs() {
	local d
	for d in "$RIG"/patches/[0-9][0-9][0-9][0-9]-*/; do
		[[ -d $d ]] && echo "${d%/}"
	done
	return 0
}

# Tree paths a diff changes (its "+++ b/" lines; deletions by "--- a/").
diff_targets() {
	awk '/^--- a\//		{ from = substr($0, 7) }
	     /^\+\+\+ b\//	{ print substr($0, 7) }
	     /^\+\+\+ \/dev\/null/	{ print from }' "$1" | sort -u
}

# "PATCH SRC DEST" of every file the patches' files lists install, in
# order, directories file by file: the overlay path and where it lands in
# the tree. The one parser of files lists; dies on a path the repository
# does not have and on a renamed directory.
installed_files() {
	local dir line f dest
	for dir in $(patch_dirs); do
		[[ -f $dir/files ]] || continue
		while read -r line; do
			[[ -z $line || $line == \#* ]] && continue
			f=${line%% -> *} dest=$f
			[[ $line == *" -> "* ]] && dest=${line#* -> }
			[[ -e $RIG/$f ]] || die "${dir#"$RIG"/}/files: $f does not exist in the repository"
			if [[ -d $RIG/$f ]]; then
				[[ $dest == "$f" ]] ||
					die "${dir#"$RIG"/}/files: directories cannot be renamed ($line)"
				(cd "$RIG" && git ls-files --cached --others --exclude-standard -- "$f") |
					sed "s|.*|${dir##*/} & &|"
			else
				echo "${dir##*/} $f $dest"
			fi
		done <"$dir/files"
	done
}

# Our own files' later steps: "PATCH DIFF DEST" for every diff of
# patches/*/ that changes a file an earlier patch installed; $1 is what
# installed_files says.
own_diffs() {
	local dir f t installs=$1
	for dir in $(patch_dirs); do
		for f in "$dir"/*.diff; do
			[[ -f $f ]] || continue
			for t in $(diff_targets "$f"); do
				awk -v t="$t" '$3 == t { found = 1 } END { exit !found }' <<<"$installs" &&
					echo "${dir##*/} ${f#"$RIG"/} $t"
			done
		done
	done
	return 0
}

# step_version PATCH SRC DEST OWN: writes to stdout the version of DEST
# that PATCH installs: SRC with the later patches' diffs of DEST taken
# back, newest first.
step_version() {
	local patch=$1 src=$2 dest=$3 own=$4 tmp d
	tmp=$(mktemp -d)
	mkdir -p "$tmp/$(dirname "$dest")"
	cp "$RIG/$src" "$tmp/$dest"
	for d in $(awk -v p="$patch" -v t="$dest" '$1 > p && $3 == t { print $2 }' <<<"$own" | tac); do
		(cd "$tmp" && git apply -R --include="$dest" "$RIG/$d" 2>/dev/null) || {
			rm -rf "$tmp"
			die "$d no longer takes back from $src: the overlay changed where that step changes $dest; edit the step in build/src/stage and run 'make import'"
		}
	done
	cat "$tmp/$dest"
	rm -rf "$tmp"
}

stage_series() {
	local dir f src dest claimed unclaimed="" own installs
	worktree stage
	git -C "$SRC/stage" checkout -q -f --detach base
	git -C "$SRC/stage" clean -q -f -d -x
	installs=$(installed_files) || exit 1
	own=$(own_diffs "$installs")
	awk '{ print $1, $3 }' <<<"$own" | while read -r f dest; do
		awk -v p="$f" -v t="$dest" '$1 == p && $3 == t { exit 1 }' <<<"$installs" ||
			die "patches/$f both installs $dest and changes it by a diff: one or the other"
	done
	claimed=$(mktemp)
	for dir in $(patch_dirs); do
		local name=${dir#"$RIG"/}
		[[ -f $dir/message ]] || die "$name/message missing: every patch needs a commit message"
		if [[ -f $dir/remove ]]; then
			while read -r f; do
				[[ -z $f || $f == \#* ]] && continue
				git -C "$SRC/stage" rm -q -r -- "$f" ||
					die "$name/remove: $f is not in the base tree"
			done <"$dir/remove"
		fi
		# This patch's files: the overlay's version, or this step's of
		# a file later patches change.
		while read -r src dest; do
			echo "$src" >>"$claimed"
			mkdir -p "$SRC/stage/$(dirname "$dest")"
			if grep -q " $dest\$" <<<"$own"; then
				step_version "${dir##*/}" "$src" "$dest" "$own" >"$SRC/stage/$dest"
			else
				cp --preserve=mode "$RIG/$src" "$SRC/stage/$dest"
			fi
			git -C "$SRC/stage" add -f -- "$dest"
		done < <(awk -v p="${dir##*/}" '$1 == p { print $2, $3 }' <<<"$installs")
		for f in "$dir"/*.diff; do
			[[ -f $f ]] || continue
			if grep -q " ${f#"$RIG"/} " <<<"$own"; then
				git -C "$SRC/stage" apply --index "$f" 2>/dev/null ||
					die "${f#"$RIG"/} does not apply to the version the earlier patches install"
			else
				git -C "$SRC/stage" apply --index "$f" 2>/dev/null ||
					die "${f#"$RIG"/} does not apply to the base tree: refresh it against $(git_base log -1 --format=%s base)"
			fi
		done
		for f in "$dir"/*.sh; do
			[[ -f $f ]] || continue
			(cd "$SRC/stage" && RIG=$RIG bash "$f") ||
				die "${f#"$RIG"/} failed on the base tree"
			git -C "$SRC/stage" add -A
		done
		git -C "$SRC/stage" -c user.name="$(sign_name)" -c user.email="$(sign_email)" \
			commit -q -s --allow-empty -F "$dir/message"
	done
	# What the overlay held when the stage was made: `make import`
	# writes back only the files edited in the stage since.
	git -C "$SRC/stage" tag -f staged >/dev/null
	unclaimed=$(overlay_files | grep -vxF -f "$claimed" || true)
	rm -f "$claimed"
	[[ -z $unclaimed ]] ||
		die "overlay files in no patch (add them to a patches/*/files): $(echo $unclaimed)"
	# The last step of every file we own is the overlay.
	while read -r f src dest; do
		cmp -s "$RIG/$src" "$SRC/stage/$dest" ||
			die "the series does not end at the overlay: $dest differs from $src after the last patch"
	done <<<"$installs"
	# Our MAINTAINERS entry reaches the tree through a hook diff: it must
	# say exactly what the repository's MAINTAINERS says.
	if [[ -f $RIG/MAINTAINERS ]] && ! python3 - "$RIG/MAINTAINERS" "$SRC/stage/MAINTAINERS" <<'PY'
import sys
sys.exit(open(sys.argv[1]).read() not in open(sys.argv[2]).read())
PY
	then
		die "MAINTAINERS: the series does not carry the repository's entry verbatim: refresh the MAINTAINERS hook diff"
	fi
}

# make import: after editing the series as commits in build/src/stage
# (git rebase -i base there: one commit per patches/NNNN-*/), writes the
# edits back: our files' final versions into the overlay, each patch's
# diffs of files earlier patches installed, its hook diffs (the files of
# the base tree it changes, a new one named after the file) and its
# message. Scripts (*.sh) and files lists are left alone: the tree files
# a patch with a script changes and no diff names are the script's.
# hook_same DIFF COMMIT: whether DIFF, applied to COMMIT's parent, makes
# what COMMIT has (git may cut the same change into other hunks).
hook_same() {
	local diff=$1 c=$2 st=$SRC/stage tmp t rc=0
	tmp=$(mktemp -d)
	for t in $(diff_targets "$diff"); do
		mkdir -p "$tmp/a/$(dirname "$t")" "$tmp/b/$(dirname "$t")"
		git -C "$st" show "$c^:$t" >"$tmp/a/$t" 2>/dev/null || rm -f "$tmp/a/$t"
		git -C "$st" show "$c:$t" >"$tmp/b/$t" 2>/dev/null || rm -f "$tmp/b/$t"
	done
	(cd "$tmp/a" && git apply "$diff" 2>/dev/null) && diff -r -q "$tmp/a" "$tmp/b" >/dev/null || rc=1
	rm -rf "$tmp"
	return $rc
}

# Whether a patch before patch $1 installs tree file $2 ($3: what
# installed_files says); with $4 "or", patch $1 itself counts too.
installed_before() {
	awk -v p="$1" -v t="$2" -v or="${4:-}" \
		'($1 < p || (or && $1 == p)) && $3 == t { f = 1 } END { exit !f }' <<<"$3"
}

# import_hooks DIR COMMIT INSTALLS: writes the hook diffs of patch DIR
# from stage commit COMMIT (see cmd_import): the diffs of the tree files
# that no patch up to this one installs.
import_hooks() {
	local dir=$1 c=$2 installs=$3 st=$SRC/stage p=${1##*/} f t dest named mine
	local -a changed targets
	# Neither our files nor the upstream files the patch removes (its
	# remove list says so, without carrying their text).
	mapfile -t changed < <(git -C "$st" diff --name-only "$c^" "$c" |
		while read -r dest; do
			installed_before "$p" "$dest" "$installs" or && continue
			[[ -f $dir/remove ]] && grep -qxF -- "$dest" "$dir/remove" && continue
			echo "$dest"
		done)
	named=" "
	for f in "$dir"/*.diff; do
		[[ -f $f ]] || continue
		mapfile -t targets < <(diff_targets "$f")
		mine=
		for t in "${targets[@]}"; do
			installed_before "$p" "$t" "$installs" || mine=1
		done
		[[ -n $mine ]] || continue	# a later step of our own file
		named+="${targets[*]} "
		if git -C "$st" diff --quiet "$c^" "$c" -- "${targets[@]}"; then
			rm -f "$f"
			say "import: removed ${f#"$RIG"/}"
			continue
		fi
		hook_same "$f" "$c" && continue
		git -C "$st" diff --no-color --no-ext-diff --full-index "$c^" "$c" -- "${targets[@]}" |
			sed '/^index /d' >"$f"
		say "import: ${f#"$RIG"/}"
	done
	compgen -G "$dir/*.sh" >/dev/null && return 0
	for dest in "${changed[@]}"; do
		[[ $named == *" $dest "* ]] && continue
		f=$dir/$(basename "$dest").diff
		[[ -e $f ]] && f=$dir/$(tr / - <<<"$dest").diff
		git -C "$st" diff --no-color --no-ext-diff --full-index "$c^" "$c" -- "$dest" |
			sed '/^index /d' >"$f"
		say "import: ${f#"$RIG"/}"
	done
	return 0
}

cmd_import() {
	local st=$SRC/stage dirs commits staged n i dir c dest f own installs
	[[ -e $st/.git ]] || die "import: no build/src/stage: run 'make tree', edit there, then import"
	mapfile -t dirs < <(patch_dirs)
	mapfile -t commits < <(git -C "$st" rev-list --reverse base..HEAD)
	n=${#dirs[@]}
	[[ ${#commits[@]} == "$n" ]] ||
		die "import: build/src/stage has ${#commits[@]} commits for $n patches/NNNN-*/ directories: add or remove a directory first"
	git -C "$st" rev-parse -q --verify staged >/dev/null ||
		die "import: build/src/stage was not made by this rig's 'make tree': run it again"
	[[ -z $(git -C "$st" status --porcelain --untracked-files=no) ]] ||
		die "import: build/src/stage has uncommitted changes: commit them to the step they belong to"
	installs=$(installed_files) || exit 1
	own=$(own_diffs "$installs")
	mapfile -t staged < <(git -C "$st" rev-list --reverse base..staged)
	for ((i = 0; i < n; i++)); do
		dir=${dirs[i]} c=${commits[i]}
		# A message reworded in the stage; the others may have been
		# edited in patches/ meanwhile.
		[[ ${#staged[@]} == "$n" &&
		   $(git -C "$st" log -1 --format=%B "$c") == "$(git -C "$st" log -1 --format=%B "${staged[i]}")" ]] ||
			git -C "$st" log -1 --format=%B "$c" | sed '/^Signed-off-by: /d' |
			sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$dir/message"
		# Files this commit changes that an earlier patch installed.
		for dest in $(git -C "$st" diff --name-only "$c^" "$c"); do
			installed_before "${dir##*/}" "$dest" "$installs" || continue
			f=$(awk -v p="${dir##*/}" -v t="$dest" '$1 == p && $3 == t { print $2; exit }' <<<"$own")
			[[ -n $f ]] || f=patches/${dir##*/}/$(basename "$dest").diff
			git -C "$st" diff --no-color --no-ext-diff --full-index "$c^" "$c" -- "$dest" |
				sed '/^index /d' >"$RIG/$f"
			say "import: $f"
		done
		# Hook diffs: the base tree's files this commit changes, each
		# in the diff of this patch that already names it, else in a
		# new one; a diff naming nothing this commit changes goes.
		import_hooks "$dir" "$c" "$installs"
		# Diffs of ours this commit no longer makes.
		awk -v p="${dir##*/}" '$1 == p { print $2, $3 }' <<<"$own" | while read -r f dest; do
			git -C "$st" diff --quiet "$c^" "$c" -- "$dest" && { rm -f "$RIG/$f"; say "import: removed $f"; }
			true
		done
	done
	# Only the files edited in the stage: the overlay's others may have
	# been edited meanwhile (a file of the selftests, a new one).
	while read -r f src dest; do
		git -C "$st" diff --quiet staged HEAD -- "$dest" && continue
		git -C "$st" show "HEAD:$dest" >"$RIG/$src"
	done <<<"$installs"
	say "import: done; 'make tree' checks that the series rebuilds the same commits"
}

write_series() {
	local out=$BUILD/series cover
	rm -rf "$out"
	mkdir -p "$out"
	if [[ $(git -C "$SRC/stage" rev-list --count base..HEAD) == 0 ]]; then
		return 0
	fi
	git -C "$SRC/stage" format-patch -q --cover-letter --no-signature \
		--base=base -o "$out" base..HEAD
	cover=$(ls "$out"/0000-cover-letter.patch)
	[[ -f $RIG/patches/cover-letter ]] || return 0
	python3 - "$cover" "$RIG/patches/cover-letter" "$RIG/bench/results.md" <<'PY' ||
import re, sys
cover, src, results = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
subject, _, blurb = src.split('\n', 2)

def table(heading):
    """Rows of the first table under a heading of bench/results.md."""
    part = results.split('\n## ' + heading + '\n', 1)[1].split('\n## ', 1)[0]
    lines = [l for l in part.splitlines() if l.startswith('|')]
    head = [c.strip() for c in lines[0].strip('|').split('|')]
    return [dict(zip(head, [c.strip() for c in l.strip('|').split('|')])) for l in lines[2:]]

rows, goals = table('All rows'), table('Goals')
memory = results.split('\n## Memory per task\n', 1)[1].split('```')[1].splitlines()

def fill(m):
    kind, _, arg = m.group(1).partition(':')
    if kind == 'date':
        return re.search(r'^- Date: (\S+)T', results, re.M).group(1)
    if kind == 'boots':
        return re.search(r'^- Boots per kernel and clock: (\d+)', results, re.M).group(1)
    if kind == 'row':
        name, clock, col = arg.split(':')
        for r in rows:
            if r['workload'] == '`%s`' % name and r['clock'] == clock:
                v = r[col].replace(' ', '')
                if r['unit'] == 'ns' and col != 'ratio' and v.isdigit():
                    n = int(v)
                    return ('%.2f ms' % (n / 1e6) if n >= 10**6 else
                            '%.1f us' % (n / 1e3) if n >= 10**4 else '%d ns' % n)
                return v
    if kind == 'goal':
        clock, prefix = arg.split(':', 1)
        for g in goals:
            if g['clock'] == clock and g['goal'].startswith(prefix):
                return g['measured']
    if kind == 'memory':
        what, col = arg.rsplit(':', 1)
        cols = {'reference': 1, 'series': 2, 'delta': 3}
        for l in memory:
            if l.startswith(what + ' '):
                return l[len(what):].split()[cols[col] - 1]
    sys.exit('patches/cover-letter: {%s} is not in bench/results.md' % m.group(1))

def stable():
    """The patches marked for stable, one line each, from their files."""
    import glob, os
    lines = []
    for p in sorted(glob.glob(os.path.join(os.path.dirname(cover), '0*.patch'))):
        if os.path.basename(p).startswith('0000-'):
            continue
        text = open(p).read()
        if '\nCc: stable@vger.kernel.org' not in text:
            continue
        m = re.search(r'^Subject: \[PATCH (\d+)/\d+\] (.*(?:\n .*)*)', text, re.M)
        lines.append('  %s %s' % (m.group(1), ' '.join(m.group(2).split())))
    if not lines:
        sys.exit('patches/cover-letter: {stable}, but no patch has Cc: stable')
    return '\n'.join(lines)

def reflow(block):
    """A bullet or paragraph whose figures were filled in, wrapped again."""
    import textwrap
    first = block[0]
    lead = ' - ' if first.startswith(' - ') else ''
    words = ' '.join(l.strip() for l in block)[len(lead.strip()):].strip()
    return textwrap.wrap(words, 72, initial_indent=lead,
                         subsequent_indent=' ' * len(lead),
                         break_long_words=False, break_on_hyphens=False)

out, block = [], []
placeholder = re.compile(r'\{([a-z]+(?::[^{}]*)?)\}')
blurb = blurb.replace('\n{stable}\n', '\n\0stable\n')
for line in blurb.split('\n') + ['']:
    if block and (not line.strip() or line.startswith(' - ') or
                  line.startswith('---') or not line.startswith((' ', block[0][0]))):
        text = '\n'.join(block)
        filled = placeholder.sub(fill, text)
        out += reflow(filled.split('\n')) if filled != text else block
        block = []
    if line.strip() and not line.startswith('---'):
        block.append(line)
    else:
        out.append(line)
blurb = '\n'.join(out)
blurb = blurb.replace('\n\0stable\n', '\n' + stable() + '\n')
text = open(cover).read()
text = text.replace('*** SUBJECT HERE ***', subject)
text = text.replace('*** BLURB HERE ***', blurb.strip('\n'))
open(cover, 'w').write(text)
PY
		die "the cover letter could not be filled from bench/results.md"
}

# The recipients scripts/get_maintainer.pl names for the whole series
# go on the cover letter (To: the people, Cc: the lists); send the
# patches with --cc-cmd to give each its own (README). Only make series
# does this: the checks need no recipients, and one run of the script
# over the series takes about 15 s.
address_series() {
	local out=$1 cover=$1/0000-cover-letter.patch who f patches=()
	for f in "$out"/0*.patch; do
		[[ $f == */0000-cover-letter.patch ]] || patches+=("$f")
	done
	who=$(cd "$SRC/stage" && perl scripts/get_maintainer.pl --nogit \
		--nogit-fallback --nofixes "${patches[@]}") ||
		die "scripts/get_maintainer.pl failed on the series"
	python3 - "$cover" "$who" <<'PY'
import sys
cover, who = sys.argv[1:]
to, cc = [], []
for line in who.splitlines():
    # "Name <address> (role)" for a person, "address (open list:...)" for a list
    addr, _, role = line.partition(' (') if '<' not in line else \
        (line[:line.index('>') + 1], '', line[line.index('>') + 1:])
    (cc if 'list' in role else to).append(addr.strip())
head, sep, body = open(cover).read().partition('\nSubject: ')
add = ''.join('\n%s: %s' % (k, ', '.join(v)) for k, v in (('To', to), ('Cc', cc)) if v)
open(cover, 'w').write(head + add + sep + body)
PY
}

# Applies the generated series to a pristine base with git am and checks
# that the result is exactly the staged tree.
verify_series() {
	local p
	worktree verify
	git -C "$SRC/verify" am --abort >/dev/null 2>&1 || true
	git -C "$SRC/verify" checkout -q -f --detach base
	git -C "$SRC/verify" clean -q -f -d -x
	for p in "$BUILD"/series/[0-9][0-9][0-9][0-9]-*.patch; do
		[[ -f $p && $p != */0000-cover-letter.patch ]] || continue
		git -C "$SRC/verify" -c user.name="$(sign_name)" -c user.email="$(sign_email)" \
			am -q "$p" >/dev/null 2>&1 || die "$(basename "$p") does not apply with git am to the base"
	done
	[[ $(git -C "$SRC/verify" rev-parse 'HEAD^{tree}') == $(git -C "$SRC/stage" rev-parse 'HEAD^{tree}') ]] ||
		die "the series applied with git am differs from the staged tree"
}

cmd_tree() {
	make_base
	stage_series
	write_series
	verify_series
	worktree series
	git -C "$SRC/series" checkout -q -f --detach "$(git -C "$SRC/verify" rev-parse HEAD)"
}

cmd_series() {
	cmd_tree
	address_series "$BUILD/series"
	local n
	n=$(find "$BUILD/series" -name '[0-9]*.patch' ! -name '0000-*' | wc -l)
	say "series: $n patches in $BUILD/series (applies with git am to $(git_base log -1 --format=%s base))"
}

cmd_checkpatch() {
	local p bad=0
	for p in "$BUILD"/series/[0-9][0-9][0-9][0-9]-*.patch; do
		[[ -f $p && $p != */0000-cover-letter.patch ]] || continue
		# The base tree is a tarball with no history: the commits that
		# Fixes: tags name cannot be looked up in it.
		if ! (cd "$SRC/linux" && perl scripts/checkpatch.pl --strict -q --no-tree \
				--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$p") >"$p.checkpatch" 2>&1; then
			say "checkpatch --strict: $(basename "$p")"
			sed 's/^/  /' "$p.checkpatch" >&2
			bad=1
		fi
	done
	return $bad
}

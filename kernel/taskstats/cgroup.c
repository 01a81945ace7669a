// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats: the tasks of one cgroup, or of its subtree, listed for
 * a dump; the cgroup a listener hears the exits of.
 */
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "internal.h"

/*
 * The cgroup (of either version) whose directory @dir is, pinned: EINVAL
 * for anything else, ENOENT for a cgroup being removed.
 */
static struct cgroup_subsys_state *cgroup_dir_css(struct dentry *dir)
{
	struct cgroup_subsys_state *css = css_tryget_online_from_dir(dir, NULL);

	if (IS_ERR(css) && PTR_ERR(css) == -EBADF)
		return ERR_PTR(-EINVAL);
	return css;
}

/*
 * A dump of one cgroup (DUMP_CGROUP_FD) sends the tasks that are in that
 * cgroup when it starts, and with DUMP_SUBTREE those of its descendants,
 * in pid order. They are listed then, with the cgroup core's task
 * iterator, whose cost follows the cgroup's tasks and not the pid space,
 * as pid numbers of the requester's namespace with their start times:
 * 16 bytes a task (12 on i386), charged to the requester. Only the tasks
 * whose io file the requester could open are listed, so that the list of
 * a dump left unread, which lives as long as its socket, holds at most
 * what the requester may read: its own tasks, for a user. The dump's
 * parts look each up again and skip the tasks gone, or whose number a
 * new task took. Nothing is held between parts: a task, a css_set or a
 * cgroup pinned by a dump its requester stopped reading would stay
 * allocated after its exit or rmdir, for as long as the socket lived.
 *
 * A task that moves between the subtree's cgroups while they are listed
 * is sent once, not twice, but may be missed, as a directory walk misses
 * a file renamed behind it (struct cgroup_list, in internal.h).
 */

static int cgroup_list_add(struct cgroup_list *l, struct task_struct *tsk,
			   const struct requester *rq)
{
	struct pid_namespace *ns = rq->pid_ns;
	struct cgroup_entry *e;
	pid_t nr = l->tgid ? task_tgid_nr_ns(tsk, ns) : task_pid_nr_ns(tsk, ns);

	if (!nr)		/* another namespace's, or reaped */
		return 0;
	/* Unaudited, as a dump's checks are; a group's is its leader's. */
	if (!ts_may_open(rq, tsk, PTRACE_MODE_READ_FSCREDS | PTRACE_MODE_NOAUDIT))
		return 0;
	if (l->len == l->size) {
		unsigned int size = l->size ? 2 * l->size : 64;

		e = kvrealloc(l->tasks, array_size(size, sizeof(*e)),
			      GFP_KERNEL_ACCOUNT);
		if (!e)
			return -ENOMEM;
		l->tasks = e;
		l->size = size;
	}
	e = &l->tasks[l->len++];
	e->nr = nr;
	/* A leader's, for a group. */
	e->start_time = READ_ONCE(tsk->start_time);
	return 0;
}

/* Lists the tasks of @css itself. */
static int cgroup_list_css(struct cgroup_list *l,
			   struct cgroup_subsys_state *css,
			   const struct requester *rq)
{
	struct css_task_iter it;
	struct task_struct *tsk;
	int ret = 0;

	css_task_iter_start(css, l->tgid ? CSS_TASK_ITER_PROCS : 0, &it);
	while (!ret && (tsk = css_task_iter_next(&it)))
		ret = cgroup_list_add(l, tsk, rq) ?: ts_walk_pause(&l->steps);
	css_task_iter_end(&it);
	return ret;
}

/* Lists the tasks of @root, and with @subtree of its descendants. */
static int cgroup_list_fill(struct cgroup_list *l,
			    struct cgroup_subsys_state *root, bool subtree,
			    const struct requester *rq)
{
	struct cgroup_subsys_state *pos = root, *next;
	int ret;

	css_get(pos);
	while (!(ret = cgroup_list_css(l, pos, rq) ?: ts_walk_pause(&l->steps)) &&
	       subtree) {
		rcu_read_lock();
		next = css_next_descendant_pre(pos, root);
		while (next && !css_tryget(next))
			next = css_next_descendant_pre(next, root);
		rcu_read_unlock();
		css_put(pos);
		pos = next;
		if (!pos)
			return 0;
	}
	css_put(pos);
	return ret;
}

static int cgroup_entry_cmp(const void *a, const void *b)
{
	const struct cgroup_entry *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	if (x->start_time != y->start_time)
		return x->start_time < y->start_time ? -1 : 1;
	return 0;
}

/*
 * Puts the list in pid order, as the pid walk sends, and each task in it
 * once: one that moved from a cgroup already listed to one listed later
 * was met twice. Then gives back the room it does not use.
 */
static void cgroup_list_sort(struct cgroup_list *l)
{
	struct cgroup_entry *e;
	unsigned int i, n = 0;

	sort(l->tasks, l->len, sizeof(*l->tasks), cgroup_entry_cmp, NULL);
	for (i = 0; i < l->len; i++)
		if (!n || cgroup_entry_cmp(&l->tasks[n - 1], &l->tasks[i]))
			l->tasks[n++] = l->tasks[i];
	l->len = n;
	if (n == l->size)
		return;
	/* A copy: kvrealloc() keeps the room it is given back. */
	e = n ? kvmalloc_array(n, sizeof(*e), GFP_KERNEL_ACCOUNT) : NULL;
	if (n && !e)
		return;		/* the larger array serves */
	if (e)
		memcpy(e, l->tasks, array_size(n, sizeof(*e)));
	kvfree(l->tasks);
	l->tasks = e;
	l->size = n;
}

/**
 * ts_cgroup_list_free() - free a cgroup's list
 * @l: the list
 */
void ts_cgroup_list_free(struct cgroup_list *l)
{
	kvfree(l->tasks);
	kfree(l);
}

/**
 * ts_cgroup_list_start() - list the tasks of a cgroup for a dump
 * @fd: a file descriptor of the cgroup's directory
 * @subtree: the tasks of its descendants too
 * @tgid: thread groups rather than tasks
 * @rq: the dump's requester
 *
 * Lists the tasks of the cgroup whose directory @fd is open on.
 *
 * Return: the list, or an ERR_PTR().
 */
struct cgroup_list *ts_cgroup_list_start(u32 fd, bool subtree, bool tgid,
					 const struct requester *rq)
{
	struct cgroup_subsys_state *css;
	struct cgroup_list *l;
	int ret;

	CLASS(fd, f)(fd);
	if (fd_empty(f))	/* closed, or O_PATH */
		return ERR_PTR(-EBADF);
	css = cgroup_dir_css(fd_file(f)->f_path.dentry);
	if (IS_ERR(css))
		return ERR_CAST(css);
	l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (l) {
		l->tgid = tgid;
		ret = cgroup_list_fill(l, css, subtree, rq);
	}
	css_put(css);
	if (ret) {
		if (l)
			ts_cgroup_list_free(l);
		return ERR_PTR(ret);
	}
	cgroup_list_sort(l);
	return l;
}

/**
 * ts_cgroup_filter_init() - the cgroup a listener hears the exits of
 * @f: set to it
 * @fd: a file descriptor of the cgroup's directory, on cgroup v2
 * @subtree: of its descendants too
 *
 * Keeps the cgroup's id and level, which the tasks' cgroups are matched
 * against as they exit: cgroup v2 only, the one hierarchy every task is
 * in, whose ids records carry. The fd must be open (not O_PATH), as for a
 * cgroup dump: the registrant opened the directory, or was given it.
 *
 * Return: 0; -EBADF for a closed or O_PATH fd, -EINVAL for a file that
 * is no cgroup directory, -ENOENT for a removed cgroup, -EOPNOTSUPP for a
 * cgroup v1 directory.
 */
int ts_cgroup_filter_init(struct ts_cgroup_filter *f, u32 fd, bool subtree)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp;
	int ret = 0;

	CLASS(fd, file)(fd);
	if (fd_empty(file))
		return -EBADF;
	css = cgroup_dir_css(fd_file(file)->f_path.dentry);
	if (IS_ERR(css))
		return PTR_ERR(css);
	cgrp = css->cgroup;
	if (cgrp->root == &cgrp_dfl_root) {
		f->id = cgroup_id(cgrp);
		f->level = cgrp->level;
		f->subtree = subtree;
	} else {
		ret = -EOPNOTSUPP;
	}
	css_put(css);
	return ret;
}

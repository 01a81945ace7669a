/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the agent*.c files share beyond agent.h: not an interface of the
 * tests.
 */
#ifndef TS_AGENT_INTERNAL_H
#define TS_AGENT_INTERNAL_H

/*
 * Defined in agent_serve.c: runs the agent on its end @sock of the socket
 * pair, obeying commands until it closes; never returns.
 */
void serve(int sock);

#endif

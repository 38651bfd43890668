#include <stdio.h>

#include "daemon/next.h"

/* Replaced by the graph work; fails loudly until then. */
int
next_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("bisectctl next: not implemented yet\n", stderr);
	return 2;
}

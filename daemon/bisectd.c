/* Placeholder until the daemon lands. */
#include <stdio.h>
int main(void) { fputs("bisectd: not built yet\n", stderr); return 1; }

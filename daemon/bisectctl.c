/* Placeholder until the client lands. */
#include <stdio.h>
int main(void) { fputs("bisectctl: not built yet\n", stderr); return 1; }

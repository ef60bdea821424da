# cookiekit gdb helpers; see gdb-scripts/README.md.

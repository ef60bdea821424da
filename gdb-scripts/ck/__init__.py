# SPDX-License-Identifier: GPL-2.0
# cookiekit gdb helpers; see gdb-scripts/README.md.

# The replacement lab counts one major fault per page read back: swap-in readahead off
# (/proc/sys/vm/page-cluster 0; docs/reclaim.md).
echo 0 > /proc/sys/vm/page-cluster && cat /proc/sys/vm/page-cluster

"""The namespaced network tier: the box and the phones on two network namespaces joined by
a veth pair (netns.py), as root; `bash tests/check` installs iproute2 and zbar-tools."""

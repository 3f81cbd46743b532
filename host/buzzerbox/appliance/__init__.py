"""The appliance: a Pi that boots into the box, and the hardware's own tools.

install.sh and buzzerbox.service (shipped in the package), `buzzerbox install`,
`buzzerbox box` (serve, advertised by mDNS, its URL and QR code on the console),
`buzzerbox doctor`, and `buzzerbox hardware` (wiring tables and diagrams drawn
from the pad map). See README.md beside this file.
"""

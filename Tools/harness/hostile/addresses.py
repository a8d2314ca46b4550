"""Issue 37, item 10: names that resolve (through the harness's DNS) to addresses the policy must
refuse though they look public — IPv6 forms carrying a private IPv4 and the cloud platforms'
internal addresses. Each address is put on lo with an origin listening there, so a server that
lets one through is seen connecting; a refusal is 403 with no connection at all."""
import subprocess

from harness import get, progress
from origins import Origin

SUFFIX = "policy.test"
ADDRESSES = [  # (label, address): the DNS answers f"{label}.{SUFFIX}" with it
    ("nat64-local", "64:ff9b:1::a00:1"),  # RFC 8215 local-use NAT64, carrying 10.0.0.1
    ("siit", "::ffff:0:a00:1"),  # RFC 2765 IPv4-translated (::ffff:0:0/96), carrying 10.0.0.1
    ("teredo", "2001:0:4136:e378:8000:63bf:f5ff:fffe"),  # RFC 4380: client 10.0.0.1, stored inverted
    ("azure-wireserver", "168.63.129.16"),  # Azure's host endpoint (DHCP, DNS, health, metadata)
    ("alibaba-metadata", "100.100.100.200"),  # Alibaba Cloud's metadata service
    ("aws-imds-v6", "fd00:ec2::254"),  # EC2's instance metadata service over IPv6
]


def dns_records():
    return {f"{label}.{SUFFIX}": [address] for label, address in ADDRESSES}


def listen(files):
    """Each address on lo (where the kernel takes it) with an origin on one shared port: label ->
    origin, or None when the address could not be set up (then only the answer is checked)."""
    try:
        with open("/proc/sys/net/ipv6/conf/lo/disable_ipv6", "w") as knob:
            knob.write("0")
    except OSError:
        pass  # no IPv6 here: those origins are None
    origins, port = {}, 0
    for label, address in ADDRESSES:
        family = "-6" if ":" in address else "-4"
        suffix = "/128" if ":" in address else "/32"
        extra = ["nodad"] if ":" in address else []
        subprocess.run(["ip", family, "addr", "add", address + suffix, "dev", "lo", *extra], capture_output=True)
        try:
            origin = Origin(address, port, files)
            port = origin.port
            origins[label] = origin
        except OSError:
            origins[label] = None
    return origins, port


def refused(report, server, world):
    progress("37.10: sources resolving to NAT64/SIIT/Teredo forms of 10.0.0.1 and cloud-internal addresses")
    for label, address in ADDRESSES:
        origin = world.policy_origins.get(label)
        before = origin.connections if origin else 0
        answer = get(server.port, f"/unsafe/10x10/{label}.{SUFFIX}:{world.policy_port}/tiny.png", timeout=20)
        reached = (origin.connections - before) if origin else None
        seen = f"connections to {address}: {reached}" if origin else f"{address} not on lo here (connection not observable)"
        report.judge(f"37.10 policy {label} {address}", server, answer.status == 403 and not reached,
                     f"answer {answer.why()}, {seen} (want 403, no connection)")

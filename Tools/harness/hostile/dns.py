"""A tiny authoritative DNS responder on 127.0.0.1:53/udp (standard library only).

Names under the rebind suffix answer their first A query with a public address and every later
one with 127.0.0.1 (per name): a server that checks one answer but connects by another lookup
reaches loopback. Names under the public suffix, and the single-label names given, always answer
the public origin. `fixed` names answer the addresses given (A for IPv4, AAAA for IPv6); names
under the blackhole suffix never get an answer at all (a name server that hangs). Anything else is
NXDOMAIN; AAAA and other types get no records.
"""
import socket
import struct
import threading
from collections import Counter

A, AAAA = 1, 28


class Responder:
    def __init__(self, rebind_suffix, first_answer, public_suffix, public_answer, single_labels=(),
                 blackhole_suffix="blackhole.test", fixed=None):
        self.blackhole_suffix = blackhole_suffix.lower()
        self.fixed = {name.lower(): addresses for name, addresses in (fixed or {}).items()}
        self.blackholed = 0  # queries left unanswered
        self.rebind_suffix = rebind_suffix.lower()
        self.first_answer = first_answer
        self.public_suffix = public_suffix.lower()
        self.public_answer = public_answer
        self.single_labels = {name.lower() for name in single_labels}
        self.a_queries = Counter()  # name as asked (lower case, no root dot) -> A queries
        self.lock = threading.Lock()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 53))
        threading.Thread(target=self._serve, daemon=True, name="dns").start()

    def queries(self, name):
        with self.lock:
            return self.a_queries[name.lower().rstrip(".")]

    def _under(self, name, suffix):
        return name == suffix or name.endswith("." + suffix)

    def _known(self, name):
        return (self._under(name, self.rebind_suffix) or self._under(name, self.public_suffix)
                or name in self.single_labels or name in self.fixed)

    def _address(self, name):
        """The A record for `name` (counting the query), or None."""
        with self.lock:
            self.a_queries[name] += 1
            count = self.a_queries[name]
        if self._under(name, self.rebind_suffix):
            return self.first_answer if count == 1 else "127.0.0.1"
        return self.public_answer if self._known(name) else None

    def _serve(self):
        while True:
            try:
                packet, peer = self.sock.recvfrom(4096)
            except OSError:
                return  # closed
            try:
                reply = self._reply(packet)
            except (IndexError, struct.error):
                continue  # a malformed query gets no answer
            if reply:
                self.sock.sendto(reply, peer)

    def _reply(self, packet):
        ident, flags, qdcount = struct.unpack("!HHH", packet[:6])
        if qdcount != 1 or flags & 0x8000:
            return None
        labels, offset = [], 12
        while packet[offset] != 0:
            length = packet[offset]
            labels.append(packet[offset + 1:offset + 1 + length].decode("latin-1"))
            offset += 1 + length
        qtype = struct.unpack("!H", packet[offset + 1:offset + 3])[0]
        question = packet[12:offset + 5]
        name = ".".join(labels).lower()
        if self._under(name, self.blackhole_suffix):
            with self.lock:
                self.blackholed += 1
            return None
        if name in self.fixed:
            with self.lock:
                self.a_queries[name] += qtype == A
            records = [self._record(qtype, address) for address in self.fixed[name]]
            records = [record for record in records if record]
        else:
            address = self._address(name) if qtype == A else None
            records = [self._record(A, address)] if address else []
        rcode = 0 if self._known(name) else 3  # NXDOMAIN
        reply_flags = 0x8000 | 0x0400 | (flags & 0x0100) | 0x0080 | rcode
        return struct.pack("!HHHHHH", ident, reply_flags, 1, len(records), 0, 0) + question + b"".join(records)

    @staticmethod
    def _record(qtype, address):
        """The answer record for `address` when it is of `qtype`: the name as a pointer to the
        question (offset 12), class IN, TTL 0."""
        family, kind = (socket.AF_INET6, AAAA) if ":" in address else (socket.AF_INET, A)
        if kind != qtype:
            return None
        packed = socket.inet_pton(family, address)
        return struct.pack("!HHHIH", 0xC00C, kind, 1, 0, len(packed)) + packed

    def close(self):
        self.sock.close()

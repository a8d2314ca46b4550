"""Signature malleability (6): a signed path sent with a `/` percent-encoded must be refused or
mean exactly what was signed — never another size, or another source."""
import base64
import hashlib
import hmac

from harness import get, image_size, progress

KEY = "hostile-check-key"


def sign(text):
    """thumbor's signature: HMAC-SHA1 of the path after it, URL-safe base64 with padding."""
    return base64.urlsafe_b64encode(hmac.new(KEY.encode(), text.encode(), hashlib.sha1).digest()).decode()


def malleability(report, server, world):
    progress("6: signed paths resent with %2F for a /")
    source = f"{world.public_ip}:{world.public.port}/photo.png"
    # (signed text, what is sent). Option words left in the source become its host: the DNS
    # answers them with the public origin, which also listens on port 80 (world.alias).
    cases = [
        (f"300x200/{source}", f"300x200%2F{source}"),
        (f"300x200/{source}", f"300x200%2f{source}"),
        (f"fit-in/300x200/{source}", f"fit-in%2F300x200/{source}"),
        (f"300x200/smart/{source}", f"300x200/smart%2F{source}"),
        (f"300x200/{source}", f"300x200/{world.public_ip}:{world.public.port}%2Fphoto.png"),
    ]
    for signed, sent in cases:
        signature = sign(signed)
        proper = get(server.port, f"/{signature}/{signed}")
        expected = image_size(proper.body) if proper.status == 200 else None
        label = f"6 signed {signed.replace(source, 'SRC')} sent as {sent.replace(source, 'SRC')}"
        if expected is None:
            report.judge(label, server, False, f"the properly sent URL answered {proper}: nothing to compare")
            continue
        alias_before = world.alias.total()
        answer = get(server.port, f"/{signature}/{sent}")
        other_source = world.alias.total() - alias_before
        if answer.refused:
            report.judge(label, server, True, f"answer {answer}")
            continue
        size = image_size(answer.body) if answer.status == 200 else None
        same = size == expected and other_source == 0
        shown = f"{size[0]}x{size[1]}" if size else "no image"
        report.judge(label, server, same,
                     f"answer {answer} {shown}, signed meaning {expected[0]}x{expected[1]}"
                     + (f", fetched from another source ({other_source}x on port 80)" if other_source else ""))

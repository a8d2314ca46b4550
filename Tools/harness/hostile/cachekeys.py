"""Issue 37, result-cache keys: `Accept` q-values must not make new keys for one signed variant
(item 3), and a purge names the source however its host is spelled (item 9)."""
import os
import time
import urllib.parse

import signing
from harness import get, metrics, progress

RESULT_HITS = 'webimage_cache_lookups_total{tier="result"}'
PURGE_TOKEN = "hostile-check-purge-token"


def _files(directory):
    return sum(len(names) for _, _, names in os.walk(directory))


def accept_spellings(report, server, world):
    progress("37.3: one signed variant asked with Accept image/avif;q=0.501, 0.502, …")
    signed = f"310x210/{world.source('photo.jpg')}"
    path = f"/{signing.sign(signed)}/{signed}"
    results = os.path.join(world.cache_dir(server), "results")
    answers, hits, files = [], [], []
    for i in range(10):
        answers.append(get(server.port, path, headers={"Accept": f"image/avif;q=0.{501 + i}"}))
        time.sleep(0.3)  # the disk write follows the answer
        hits.append(metrics(server.control_port).get(RESULT_HITS, 0))
        files.append(_files(results))
    statuses = sorted({str(a) for a in answers})
    types = sorted({a.headers.get("content-type", "-") for a in answers if a.status == 200})
    later_hits = hits[-1] - hits[0]
    growth = files[-1] - files[0]
    passed = all(a.status == 200 for a in answers) and later_hits == 9 and growth <= 1
    report.judge("37.3 Accept q-values, one signed variant", server, passed,
                 f"answers {', '.join(statuses)} ({', '.join(types)}); result-cache hits after the first {later_hits:.0f}/9; "
                 f"files under results/ {files[0]} after the first, {files[-1]} after all (want 9 hits, at most +1 file)")


def purge_spellings(report, server, world):
    port = world.public.port
    for i, spelling in enumerate(("PUBLIC.test", "public.test.")):
        progress(f"37.9: a variant made from public.test, purged as {spelling}")
        label = f"37.9 purge as {spelling}"
        name = f"purge{i}/photo.png"
        made_path = f"/unsafe/120x120/public.test:{port}/{name}"
        made = get(server.port, made_path)
        if made.status != 200:
            report.judge(label, server, False, f"the variant from public.test answered {made.why()}: nothing to purge")
            continue
        time.sleep(0.3)
        url = urllib.parse.quote(f"http://{spelling}:{port}/{name}", safe="")
        purged = get(server.control_port, f"/purge?url={url}", method="DELETE",
                     headers={"Authorization": f"Bearer {PURGE_TOKEN}", "Accept": "application/json"})
        fetched = world.public.seen(f"/{name}")
        hits = metrics(server.control_port).get(RESULT_HITS, 0)
        again = get(server.port, made_path)
        refetched = world.public.seen(f"/{name}") - fetched
        hit = metrics(server.control_port).get(RESULT_HITS, 0) - hits
        body = purged.body.decode("utf-8", "replace").strip()[:80]
        passed = purged.status == 200 and hit == 0 and refetched == 1
        report.judge(label, server, passed,
                     f"purge answered {purged} {body!r}; the variant asked again: {again}, "
                     f"{'a result hit' if hit else 'made anew'}, origin fetched {refetched}x "
                     f"(want 200, made anew, source fetched again)")

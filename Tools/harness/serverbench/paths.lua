-- wrk script: requests the paths listed in a file, split among wrk's threads.
-- Arguments (after --): PATHS_FILE MODE THREADS [SPARE_PATH] [DONE_FILE]
--   MODE "once": each path once, then the thread stops (cold runs; SPARE_PATH, a cheap request,
--   is sent by connections still asking after the list ran out, and is counted neither way).
--   Each thread that ran out appends a line to DONE_FILE: wrk's main thread sleeps out the whole
--   duration, so the caller sends it SIGINT once every thread is done.
--   MODE "cycle": round and round (warm runs).
-- done() prints one JSON line: served (2xx of listed paths), non-2xx, errors, latency percentiles.
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  mode = args[2]
  spare = args[4] or "/"
  done_file = args[5]
  local n = tonumber(args[3])
  paths = {}
  local i = 0
  for line in io.lines(args[1]) do
    if i % n == id then table.insert(paths, line) end
    i = i + 1
  end
  index = 0
  served = 0
  failed = 0
  exhausted = 0
end

function request()
  index = index + 1
  if index > #paths then
    if mode == "once" then
      if exhausted == 0 and done_file then
        local f = io.open(done_file, "a")
        f:write("done\n")
        f:close()
      end
      exhausted = 1
      wrk.thread:stop()
      return wrk.format("GET", spare)
    end
    index = 1
  end
  return wrk.format("GET", paths[index])
end

function response(status, headers, body)
  if status >= 200 and status < 300 then
    served = served + 1
  elseif exhausted == 0 then
    failed = failed + 1
  end
end

function done(summary, latency, requests)
  local s, f, e = 0, 0, 0
  for _, t in ipairs(threads) do
    s = s + t:get("served")
    f = f + t:get("failed")
    e = e + t:get("exhausted")
  end
  local errors = summary.errors
  io.write(string.format(
    '{"served":%d,"non2xx":%d,"exhausted":%d,"duration_us":%d,"requests":%d,"errors":%d,"timeouts":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\n',
    s, f, e, summary.duration, summary.requests,
    errors.connect + errors.read + errors.write + errors.status + errors.timeout, errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end

-- wrk script for scripts/bench-installations: every request POSTs a new iOS installation with a
-- device token no other request (in this or any other run) uses, so every save is a real create (201).
-- Usage: wrk ... -s installations.lua URL -- APP_ID APP_KEY RUN_TAG
-- Token (64 hex) = 40 random hex (so index inserts land at random, like real tokens)
--                .. 8 hex run tag .. 8 hex thread id .. 8 hex per-thread counter (uniqueness).

local threads = {}
local next_id = 0

function setup(thread)
    next_id = next_id + 1
    thread:set("tid", next_id)
    table.insert(threads, thread)
end

local app_id, app_key, tag  -- tid is a global set by setup()
local counter = 0
created, upserted, other = 0, 0, 0

function init(args)
    app_id = args[1] or "bench"
    app_key = args[2] or "benchkey"
    tag = tonumber(args[3] or "1")
    math.randomseed(os.time() * 1000 + tid)
    wrk.method = "POST"
    wrk.path = "/1.1/installations"
    wrk.headers["X-LC-Id"] = app_id
    wrk.headers["X-LC-Key"] = app_key
    wrk.headers["Content-Type"] = "application/json"
end

local function hex8()
    return string.format("%04x%04x", math.random(0, 65535), math.random(0, 65535))
end

function request()
    counter = counter + 1
    local token = hex8() .. hex8() .. hex8() .. hex8() .. hex8()
        .. string.format("%08x%08x%08x", tag, tid, counter)
    local body = '{"deviceType":"ios","deviceToken":"' .. token .. '","channels":["bench"]}'
    return wrk.format(nil, nil, nil, body)
end

function response(status, headers, body)
    if status == 201 then
        created = created + 1
    elseif status == 200 then
        upserted = upserted + 1
    else
        other = other + 1
        if other <= 3 then io.stderr:write("unexpected HTTP " .. status .. ": " .. tostring(body) .. "\n") end
    end
end

function done(summary, latency, requests)
    local c, u, o = 0, 0, 0
    for _, t in ipairs(threads) do
        c = c + (t:get("created") or 0)
        u = u + (t:get("upserted") or 0)
        o = o + (t:get("other") or 0)
    end
    -- One machine-readable line for the bench script (wrk's own report is above it).
    io.write(string.format("BENCH created=%d upserted=%d other=%d p50_us=%d p99_us=%d\n",
        c, u, o, latency:percentile(50), latency:percentile(99)))
end

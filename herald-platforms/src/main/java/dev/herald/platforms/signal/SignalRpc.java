package dev.herald.platforms.signal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * signal-cli's JSON-RPC 2.0 interface over HTTP ({@code POST /api/v1/rpc}): one request per call, answered with a
 * {@code result} or an {@code error} ({@code code}, {@code message}, and for a send that failed for every recipient
 * {@code data.response} with the per-recipient results). Parameters are the command line's options in camelCase
 * ({@code --group-id} is {@code groupId}, {@code --quote-timestamp} {@code quoteTimestamp}); list options take arrays.
 *
 * <p>signal-cli's error codes: -1 a user error (an unregistered recipient, an unknown group, bad parameters), -3 an I/O
 * error talking to Signal, -4 an untrusted identity key, -5 rate limited (the command line's exit codes, negated),
 * -32xxx the JSON-RPC standard codes. A rate limit also shows as a {@code RATE_LIMIT_FAILURE} result, sometimes with
 * {@code retryAfterSeconds}. Nothing of the message travels into an error text this class makes.
 */
final class SignalRpc {
    static final int USER_ERROR = -1;
    static final int IO_ERROR = -3;
    static final int UNTRUSTED_KEY_ERROR = -4;
    static final int RATE_LIMIT_ERROR = -5;

    /** An answer: the result, or the error's code and message (text from signal-cli, never the message sent). */
    record Answer(JsonNode result, Integer code, String message, JsonNode data) {
        boolean ok() {
            return code == null;
        }
    }

    private final URI endpoint;
    private final JsonHttp http;
    private final Duration timeout;
    private final AtomicLong ids = new AtomicLong();

    SignalRpc(URI base, Duration connectTimeout, Duration timeout) {
        this.endpoint = URI.create(base + "/api/v1/rpc");
        this.http = new JsonHttp(connectTimeout, List.of());
        this.timeout = timeout;
    }

    /**
     * Calls {@code method} with {@code params}.
     *
     * @throws IOException when the daemon could not be reached or did not answer JSON-RPC (message names the kind only)
     */
    Answer call(String method, ObjectNode params) throws IOException {
        long id = ids.incrementAndGet();
        ObjectNode request = JsonHttp.JSON.createObjectNode().put("jsonrpc", "2.0").put("method", method).put("id", id);
        request.set("params", params);
        JsonHttp.Reply r = http.post(endpoint.toString(), request, Map.of(), timeout);
        JsonNode body = r.body();
        if (!body.isObject()) {
            throw new IOException("the daemon answered HTTP " + r.status() + " without a JSON-RPC body");
        }
        JsonNode error = body.get("error");
        if (error != null && error.isObject()) {
            return new Answer(null, error.path("code").asInt(0), error.path("message").asText(""), error.path("data"));
        }
        if (!body.has("result")) {
            throw new IOException("the daemon answered HTTP " + r.status() + " with neither result nor error");
        }
        return new Answer(body.get("result"), null, null, null);
    }

    /** The failure's kind, without URL or headers. */
    String describe(IOException e) {
        return http.describe(e);
    }

    ObjectNode params() {
        return JsonHttp.JSON.createObjectNode();
    }

    /**
     * A send's answer as a {@link SendResult}: sent with the message's timestamp (Signal's id of a message together with
     * its author), rate-limited with signal-cli's wait, or failed with a clear reason and whether a retry may help.
     */
    static SendResult sendResult(String method, Answer a) {
        if (a.ok()) {
            JsonNode results = a.result().path("results");
            JsonNode failed = firstFailure(results);
            if (failed != null && !anySuccess(results)) {
                return failure(method, failed.path("type").asText(), failed.path("retryAfterSeconds"), "");
            }
            long ts = a.result().path("timestamp").asLong(0);
            return SendResult.sent(ts > 0 ? Long.toString(ts) : null);
        }
        JsonNode results = a.data() == null ? null : a.data().path("response").path("results");
        JsonNode failed = results == null ? null : firstFailure(results);
        String why = a.message() == null || a.message().isBlank() ? "" : ": " + clip(a.message());
        if (a.code() == RATE_LIMIT_ERROR || failed != null && failed.path("type").asText().equals("RATE_LIMIT_FAILURE")) {
            JsonNode after = failed == null ? null : failed.path("retryAfterSeconds");
            return failure(method, "RATE_LIMIT_FAILURE", after, why);
        }
        if (failed != null) {
            return failure(method, failed.path("type").asText(), null, why);
        }
        return switch (a.code()) {
            case USER_ERROR -> SendResult.failed("signal - " + method + " refused by signal-cli (error -1)" + why, false);
            case IO_ERROR -> SendResult.failed("signal - " + method + " failed talking to Signal (error -3)" + why, true);
            case UNTRUSTED_KEY_ERROR -> SendResult.failed("signal - " + method + " refused: the recipient's safety number changed and "
                    + "is not trusted yet (error -4); trust it with signal-cli trust" + why, false);
            default -> SendResult.failed("signal - " + method + " failed with JSON-RPC error " + a.code() + why, a.code() <= -32000);
        };
    }

    private static SendResult failure(String method, String type, JsonNode retryAfter, String why) {
        return switch (type) {
            case "RATE_LIMIT_FAILURE" -> {
                long seconds = retryAfter != null && retryAfter.canConvertToLong() && retryAfter.asLong() > 0 ? retryAfter.asLong() : 60;
                yield SendResult.rateLimited("signal - " + method + " rate limited by Signal; retrying in " + seconds + " s" + why,
                        Duration.ofSeconds(Math.min(seconds, 3600)));
            }
            case "UNREGISTERED_FAILURE" -> SendResult.failed("signal - " + method + " refused: the recipient is not registered with "
                    + "Signal" + why, false);
            case "IDENTITY_FAILURE" -> SendResult.failed("signal - " + method + " refused: the recipient's safety number changed and "
                    + "is not trusted yet; trust it with signal-cli trust" + why, false);
            case "NETWORK_FAILURE" -> SendResult.failed("signal - " + method + " failed: signal-cli could not reach Signal" + why, true);
            default -> SendResult.failed("signal - " + method + " failed (" + clip(type) + ")" + why, true);
        };
    }

    private static JsonNode firstFailure(JsonNode results) {
        if (results == null || !results.isArray()) {
            return null;
        }
        for (JsonNode r : results) {
            String type = r.path("type").asText("");
            if (!type.isEmpty() && !type.equals("SUCCESS")) {
                return r;
            }
        }
        return null;
    }

    private static boolean anySuccess(JsonNode results) {
        if (results == null || !results.isArray()) {
            return false;
        }
        for (JsonNode r : results) {
            if (r.path("type").asText("").equals("SUCCESS")) {
                return true;
            }
        }
        return false;
    }

    /** signal-cli's own text, cut short and on one line (it may name a number, never the message). */
    private static String clip(String s) {
        String one = s.replaceAll("[\\r\\n\\t]+", " ").strip();
        return one.length() > 300 ? one.substring(0, 300) + "..." : one;
    }
}

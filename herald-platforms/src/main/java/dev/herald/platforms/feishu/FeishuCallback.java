package dev.herald.platforms.feishu;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.InboundHttp;
import dev.herald.core.platform.MessageEvent;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request URL the open platform calls for events and card callbacks, {@code POST /platforms/feishu/events}.
 *
 * <p>With an Encrypt Key, an event must carry {@code X-Lark-Signature} over {@code X-Lark-Request-Timestamp},
 * {@code X-Lark-Request-Nonce}, the key and the raw body, checked in constant time, and its timestamp must lie within
 * {@link FeishuSettings.Timing#timestampWindow()} of Herald's clock, before the body is parsed or decrypted; then the
 * body's {@code encrypt} field is decrypted ({@link FeishuCrypto}). The one unsigned request taken is the URL
 * verification (the platform does not sign it), which must still decrypt with the key. Without an Encrypt Key the body
 * is plain JSON. Either way the Verification Token it carries ({@code header.token}, or {@code token} in a URL
 * verification) must match, in constant time. A wrong or missing signature, token or an old timestamp is 401, a body
 * that is not the platform's 400.
 *
 * <p>{@code url_verification} is answered {@code {"challenge": ...}}. A message goes to the gateway: 200 once stored,
 * refused or found to be a duplicate (a redelivered event repeats its message_id, which the store dedupes), 503 when it
 * was not taken (Herald stopping, the store unable to write), which the platform answers by delivering it again.
 */
final class FeishuCallback {
    private static final Logger log = LoggerFactory.getLogger(FeishuCallback.class);
    private static final Pattern SIGNATURE = Pattern.compile("[0-9a-fA-F]{64}");
    private static final Pattern TIMESTAMP = Pattern.compile("[0-9]{1,12}");
    private static final Pattern NONCE = Pattern.compile("[\\x21-\\x7e]{1,128}");

    private final FeishuCrypto crypto;
    private final byte[] token;
    private final FeishuEvents events;
    private final Clock clock;
    private final Duration window;
    private final Function<MessageEvent, Admission> receiver;

    FeishuCallback(FeishuCrypto crypto, String verificationToken, FeishuEvents events, Clock clock, Duration window,
            Function<MessageEvent, Admission> receiver) {
        this.crypto = crypto;
        this.token = verificationToken.getBytes(StandardCharsets.UTF_8);
        this.events = events;
        this.clock = clock;
        this.window = window;
        this.receiver = receiver;
    }

    void serveOn(InboundHttp http) {
        http.route("POST", "events", this::receive);
    }

    InboundHttp.Response receive(InboundHttp.Request r) {
        JsonNode root;
        try {
            root = open(r);
        } catch (FeishuCrypto.Refused e) {
            log.warn("feishu - event from {} refused ({}), nothing read or stored: {}", r.remoteAddress(), e.status, e.getMessage());
            return InboundHttp.Response.text(e.status, "refused");
        }
        if (root.path("type").asText("").equals("url_verification")) {
            if (!tokenMatches(root.path("token").asText(""))) {
                log.warn("feishu - URL verification from {} with a wrong token; refused (401)", r.remoteAddress());
                return InboundHttp.Response.text(401, "refused");
            }
            log.info("feishu - request URL verified by the open platform (from {})", r.remoteAddress());
            return InboundHttp.Response.json(200, JsonHttp.JSON.createObjectNode().put("challenge", root.path("challenge").asText("")).toString());
        }
        if (root.path("schema").asText("").equals("2.0") && !tokenMatches(root.path("header").path("token").asText(""))) {
            log.warn("feishu - event from {} with a wrong verification token; refused (401), nothing stored", r.remoteAddress());
            return InboundHttp.Response.text(401, "refused");
        }
        Handled h = handle(root, events, clock, receiver);
        return h.taken() ? InboundHttp.Response.json(200, h.answer()) : InboundHttp.Response.text(503, "not taken now; deliver again later");
    }

    /** What handing one event on meant: taken (stored, refused, skipped or a duplicate) or not, and the JSON to answer. */
    record Handled(boolean taken, String answer) {
    }

    /**
     * Reads one schema 2.0 event (already authenticated: token-checked here, or from the long connection) and hands its
     * message to {@code receiver}; a card press is answered with a toast. Shared by both modes.
     */
    static Handled handle(JsonNode root, FeishuEvents events, Clock clock, Function<MessageEvent, Admission> receiver) {
        if (!root.path("schema").asText("").equals("2.0")) {
            log.warn("feishu - an event without schema 2.0 (a 1.0 event or an old card callback); skipped. Herald reads schema 2.0 events only");
            return new Handled(true, "{}");
        }
        FeishuEvents.Read read = events.read(root, clock.instant());
        boolean card = root.path("header").path("event_type").asText("").equals("card.action.trigger");
        if (read.event() == null) {
            log.info("feishu - skipped {}", read.skipped());
            return new Handled(true, "{}");
        }
        Admission a = receiver.apply(read.event());
        if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
            log.info("feishu - message {} not taken ({}); answered so that the open platform delivers it again", read.event().messageId(),
                    a == Admission.REJECTED_STOPPING ? "Herald is stopping" : "the store cannot write");
            return new Handled(false, null);
        }
        log.debug("feishu - message {} from {}: {}", read.event().messageId(), read.event().source().userId(), a);
        if (card) {
            var toast = JsonHttp.JSON.createObjectNode();
            toast.putObject("toast").put("type", "info").put("content", read.event().text());
            return new Handled(true, toast.toString());
        }
        return new Handled(true, "{}");
    }

    /** The event's JSON: signature and timestamp checked and decrypted with an Encrypt Key, else parsed as it came. */
    private JsonNode open(InboundHttp.Request r) throws FeishuCrypto.Refused {
        boolean signedRequest = r.header("X-Lark-Signature").isPresent();
        if (crypto != null && signedRequest) {
            checkSigned(r);
        }
        JsonNode outer = parse(r.body(), "the body");
        if (crypto == null) {
            if (outer.has("encrypt")) {
                throw new FeishuCrypto.Refused(400, "an encrypted event, but platforms.feishu.encrypt_key is not set");
            }
            return outer;
        }
        if (!outer.path("encrypt").isTextual() && !signedRequest) {
            throw new FeishuCrypto.Refused(401, "an unsigned plain event, but platforms.feishu.encrypt_key is set");
        }
        if (!outer.path("encrypt").isTextual()) {
            throw new FeishuCrypto.Refused(400, "the body has no encrypt field, but platforms.feishu.encrypt_key is set");
        }
        JsonNode inner = parse(crypto.decrypt(outer.path("encrypt").asText()), "the decrypted event");
        if (!signedRequest && !inner.path("type").asText("").equals("url_verification")) {
            throw new FeishuCrypto.Refused(401, "an event without X-Lark-Signature (only the URL verification comes unsigned)");
        }
        return inner;
    }

    private static JsonNode parse(byte[] body, String what) throws FeishuCrypto.Refused {
        try {
            JsonNode n = JsonHttp.JSON.readTree(body);
            if (n == null || !n.isObject()) {
                throw new FeishuCrypto.Refused(400, what + " is not a JSON object");
            }
            return n;
        } catch (IOException e) {
            throw new FeishuCrypto.Refused(400, what + " is not JSON");
        }
    }

    private void checkSigned(InboundHttp.Request r) throws FeishuCrypto.Refused {
        String signature = r.header("X-Lark-Signature").orElse("");
        String timestamp = r.header("X-Lark-Request-Timestamp").orElse("");
        String nonce = r.header("X-Lark-Request-Nonce").orElse("");
        if (!SIGNATURE.matcher(signature).matches() || !TIMESTAMP.matcher(timestamp).matches() || !NONCE.matcher(nonce).matches()) {
            throw new FeishuCrypto.Refused(401, "X-Lark-Signature, X-Lark-Request-Timestamp or X-Lark-Request-Nonce missing or malformed");
        }
        if (!crypto.signed(signature, timestamp, nonce, r.body())) {
            throw new FeishuCrypto.Refused(401, "a wrong X-Lark-Signature (not signed with platforms.feishu.encrypt_key)");
        }
        Duration off = Duration.between(Instant.ofEpochSecond(Long.parseLong(timestamp)), clock.instant()).abs();
        if (off.compareTo(window) > 0) {
            throw new FeishuCrypto.Refused(401, "the signed timestamp is " + off.toSeconds() + " s from Herald's clock, outside the "
                    + window.toSeconds() + " s window (a replay, or a clock that is off)");
        }
    }

    private boolean tokenMatches(String given) {
        return MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8));
    }
}

package dev.herald.platforms.wecom;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.InboundHttp;
import dev.herald.core.platform.MessageEvent;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callback URL WeCom calls, {@code /platforms/wecom/callback}: {@code GET} is the URL check when the app's "Receive
 * Messages" API is saved (the signed, encrypted {@code echostr} is decrypted and its plaintext answered), {@code POST}
 * a message: the body's {@code <Encrypt>} is taken from the XML envelope (read with DOCTYPEs refused,
 * {@link WeComXml}), then {@code msg_signature} over token, timestamp, nonce and that text is checked in constant time and
 * the signed {@code timestamp} must lie within {@link WeComSettings.Timing#timestampWindow()} of Herald's clock, all
 * before the message is decrypted, read or stored. A wrong or missing signature or an old timestamp is 401, a message
 * for another CorpID 403, a body that is not WeCom's 400.
 *
 * <p>A good message goes to the gateway; the answer is an empty 200 (WeCom's "reply nothing": no passive reply, the
 * answer goes out through {@code message/send} later) once it was stored, refused or found to be a duplicate (WeCom's
 * retries carry the same {@code MsgId}, which the store dedupes), and 503 when it was not taken (Herald stopping, the
 * store unable to write), which WeCom, like any non-200, answers by retrying.
 */
final class WeComCallback {
    private static final Logger log = LoggerFactory.getLogger(WeComCallback.class);
    private static final Pattern SIGNATURE = Pattern.compile("[0-9a-fA-F]{40}");
    private static final Pattern TIMESTAMP = Pattern.compile("[0-9]{1,12}");
    private static final Pattern NONCE = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final WeComCrypto crypto;
    private final WeComEvents events;
    private final Clock clock;
    private final Duration window;
    private final Function<MessageEvent, Admission> receiver;

    WeComCallback(WeComCrypto crypto, WeComEvents events, Clock clock, Duration window, Function<MessageEvent, Admission> receiver) {
        this.crypto = crypto;
        this.events = events;
        this.clock = clock;
        this.window = window;
        this.receiver = receiver;
    }

    void serveOn(InboundHttp http) {
        http.route("GET", "callback", this::verify);
        http.route("POST", "callback", this::receive);
    }

    /** The URL check: the decrypted echostr as text when signed with the token and for this CorpID. */
    InboundHttp.Response verify(InboundHttp.Request r) {
        // Base64 in a query: a '+' WeCom did not percent-encode arrives decoded as a space
        String echo = r.query().getOrDefault("echostr", "").replace(' ', '+');
        try {
            checkSigned(r, echo);
            byte[] plain = crypto.decrypt(echo);
            log.info("wecom - callback URL verified by WeCom (from {})", r.remoteAddress());
            return new InboundHttp.Response(200, "text/plain; charset=utf-8", plain);
        } catch (WeComCrypto.Refused e) {
            log.warn("wecom - callback URL check from {} refused ({}): {}", r.remoteAddress(), e.status, e.getMessage());
            return InboundHttp.Response.text(e.status, "refused");
        }
    }

    /** One message: envelope, signature, timestamp, decryption, then the gateway; see the class comment. */
    InboundHttp.Response receive(InboundHttp.Request r) {
        byte[] plain;
        try {
            Map<String, String> envelope;
            try {
                envelope = WeComXml.fields(r.body());
            } catch (IOException e) {
                throw new WeComCrypto.Refused(400, "the body is " + e.getMessage());
            }
            String encrypted = envelope.getOrDefault("Encrypt", "");
            if (encrypted.isEmpty()) {
                throw new WeComCrypto.Refused(400, "the body has no <Encrypt>");
            }
            checkSigned(r, encrypted);
            plain = crypto.decrypt(encrypted);
        } catch (WeComCrypto.Refused e) {
            log.warn("wecom - callback from {} refused ({}), nothing read or stored: {}", r.remoteAddress(), e.status, e.getMessage());
            return InboundHttp.Response.text(e.status, "refused");
        }
        Map<String, String> message;
        try {
            message = WeComXml.fields(plain);
        } catch (IOException e) {
            log.warn("wecom - a signed callback's message is {}; refused (400), nothing stored", e.getMessage());
            return InboundHttp.Response.text(400, "refused");
        }
        WeComEvents.Read read = events.read(message, clock.instant());
        if (read.event() == null) {
            log.info("wecom - callback: skipped {}", read.skipped());
            return InboundHttp.Response.ok();
        }
        Admission a = receiver.apply(read.event());
        if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
            log.info("wecom - message {} not taken ({}); answered 503 so that WeCom delivers it again", read.event().messageId(),
                    a == Admission.REJECTED_STOPPING ? "Herald is stopping" : "the store cannot write");
            return InboundHttp.Response.text(503, "not taken now; deliver again later");
        }
        log.debug("wecom - message {} from {}: {}", read.event().messageId(), read.event().source().userId(), a);
        return InboundHttp.Response.ok();
    }

    private void checkSigned(InboundHttp.Request r, String encrypted) throws WeComCrypto.Refused {
        String signature = r.query().getOrDefault("msg_signature", "");
        String timestamp = r.query().getOrDefault("timestamp", "");
        String nonce = r.query().getOrDefault("nonce", "");
        if (!SIGNATURE.matcher(signature).matches() || !TIMESTAMP.matcher(timestamp).matches() || !NONCE.matcher(nonce).matches()) {
            throw new WeComCrypto.Refused(401, "msg_signature, timestamp or nonce missing or malformed");
        }
        if (!crypto.signed(signature, timestamp, nonce, encrypted)) {
            throw new WeComCrypto.Refused(401, "a wrong msg_signature (not signed with platforms.wecom.token)");
        }
        Instant at = Instant.ofEpochSecond(Long.parseLong(timestamp));
        Duration off = Duration.between(at, clock.instant()).abs();
        if (off.compareTo(window) > 0) {
            throw new WeComCrypto.Refused(401, "the signed timestamp is " + off.toSeconds() + " s from Herald's clock, outside the "
                    + window.toSeconds() + " s window (a replay, or a clock that is off)");
        }
    }
}

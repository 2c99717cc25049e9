package dev.herald.platforms.line;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.InboundHttp;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Base64;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The route LINE calls: {@code POST webhook}. A call's {@code X-Line-Signature} (base64 of the HMAC-SHA256 of the raw
 * body with the channel secret) is checked in constant time before the body is even parsed: a missing, malformed or
 * wrong one is 401 and nothing is read or stored. LINE's own "Verify" button in the console sends a signed call with no
 * events, answered 200.
 *
 * <p>A signed call's messages go to the gateway one by one, which stores each and returns (the turn runs later), so
 * the answer is quick: 200 once each was stored (or refused, or found to be a duplicate of its {@code webhookEventId}),
 * and 503 as soon as one was not taken (Herald stopping, the store unable to write), so that LINE delivers the call
 * again (with {@code isRedelivery}, when redelivery is on in the console); the events already stored are then duplicates.
 */
final class LineWebhook {
    private static final Logger log = LoggerFactory.getLogger(LineWebhook.class);
    private static final Pattern SIGNATURE = Pattern.compile("[A-Za-z0-9+/]{43}=");

    private final byte[] channelSecret;
    private final LineEvents events;
    private final Clock clock;
    private final Function<LineEvents.Incoming, Admission> receiver;

    /** @param receiver hands one message to the gateway and says what became of it */
    LineWebhook(LineSettings settings, LineEvents events, Clock clock, Function<LineEvents.Incoming, Admission> receiver) {
        this.channelSecret = settings.channelSecretValue().getBytes(StandardCharsets.UTF_8);
        this.events = events;
        this.clock = clock;
        this.receiver = receiver;
    }

    void serveOn(InboundHttp http) {
        http.route("POST", "webhook", this::receive);
    }

    /** One call: signature first, then its messages to the gateway; 200, 401 or 503 as the class comment says. */
    InboundHttp.Response receive(InboundHttp.Request r) {
        String signature = r.header("X-Line-Signature").orElse("").strip();
        if (!SIGNATURE.matcher(signature).matches()) {
            log.warn("line - webhook call from {} {}; refused (401), nothing read", r.remoteAddress(),
                    signature.isEmpty() ? "without X-Line-Signature" : "with a malformed X-Line-Signature");
            return InboundHttp.Response.text(401, "missing or malformed signature");
        }
        if (!MessageDigest.isEqual(Base64.getDecoder().decode(signature), hmac(channelSecret, r.body()))) {
            log.warn("line - webhook call from {} with a wrong X-Line-Signature ({} bytes; not signed with platforms.line.channel_secret); "
                    + "refused (401), nothing read", r.remoteAddress(), r.body().length);
            return InboundHttp.Response.text(401, "bad signature");
        }
        LineEvents.Parsed parsed;
        try {
            parsed = events.parse(r.body(), clock.instant());
        } catch (java.io.IOException e) {
            log.warn("line - a signed webhook body is not JSON ({} bytes); skipped", r.body().length);
            return InboundHttp.Response.ok();
        }
        parsed.skipped().forEach(s -> log.info("line - webhook: skipped {}", s));
        parsed.notes().forEach(n -> log.info("line - {}", n));
        for (LineEvents.Incoming in : parsed.messages()) {
            Admission a = receiver.apply(in);
            if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
                log.info("line - event {} not taken ({}); answered 503 so that LINE delivers the call again", in.event().messageId(),
                        a == Admission.REJECTED_STOPPING ? "Herald is stopping" : "the store cannot write");
                return InboundHttp.Response.text(503, "not taken now; deliver again later");
            }
            if (in.redelivered()) {
                log.info("line - event {} was delivered again by LINE (isRedelivery): {}", in.event().messageId(), a);
            } else {
                log.debug("line - event {} in {}: {}", in.event().messageId(), in.event().source().chatId(), a);
            }
        }
        return InboundHttp.Response.ok();
    }

    static byte[] hmac(byte[] key, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}

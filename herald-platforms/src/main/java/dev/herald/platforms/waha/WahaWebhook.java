package dev.herald.platforms.waha;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.InboundHttp;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The route WAHA calls: {@code POST webhook}. WAHA signs each call with the webhook's HMAC key: {@code X-Webhook-Hmac}
 * is the hex HMAC-SHA512 of the raw body, {@code X-Webhook-Hmac-Algorithm} says {@code sha512}. Both are checked, in
 * constant time, before the body is even parsed: a missing, malformed or wrong signature is 401 and nothing is read or
 * stored. The HMAC covers the body, whose {@code timestamp} (ms) then bounds a replay: a signed event older than
 * {@code maxEventAge} (or as far ahead) is 403 with a log line; a replay within it carries a message id the store has
 * seen, so it is a duplicate.
 *
 * <p>A signed message goes to the gateway; the answer is 200 once it was stored (or refused, or found to be a
 * duplicate), and 503 when it was not taken (Herald stopping, the store unable to write), so WAHA delivers it again by
 * its retry policy.
 */
final class WahaWebhook {
    private static final Logger log = LoggerFactory.getLogger(WahaWebhook.class);
    private static final Pattern SIGNATURE = Pattern.compile("[0-9a-fA-F]{128}");

    private final byte[] hmacKey;
    private final WahaEvents events;
    private final Clock clock;
    private final Duration maxEventAge;
    private final Supplier<WahaEvents.Me> me;
    private final Consumer<WahaEvents.Parsed> observer;
    private final Function<WahaEvents.Incoming, Admission> receiver;

    /**
     * @param me       the session's own number as last known (for mentions when an event names none)
     * @param observer sees every signed, current event (its status, its {@code me}) before its messages are handed on
     * @param receiver hands one message to the gateway and says what became of it
     */
    WahaWebhook(WahaSettings settings, WahaSettings.Timing timing, WahaEvents events, Clock clock, Supplier<WahaEvents.Me> me,
            Consumer<WahaEvents.Parsed> observer, Function<WahaEvents.Incoming, Admission> receiver) {
        this.hmacKey = settings.hmacKeyValue().getBytes(StandardCharsets.UTF_8);
        this.events = events;
        this.clock = clock;
        this.maxEventAge = timing.maxEventAge();
        this.me = me;
        this.observer = observer;
        this.receiver = receiver;
    }

    void serveOn(InboundHttp http) {
        http.route("POST", "webhook", this::receive);
    }

    /** One event: signature first, then its age, then its message to the gateway; 200, 401, 403 or 503 as the class comment says. */
    InboundHttp.Response receive(InboundHttp.Request r) {
        String signature = r.header("X-Webhook-Hmac").orElse("").strip();
        String algorithm = r.header("X-Webhook-Hmac-Algorithm").orElse("").strip().toLowerCase(Locale.ROOT);
        if (!SIGNATURE.matcher(signature).matches() || !algorithm.equals("sha512")) {
            log.warn("waha - webhook call from {} {}; refused (401), nothing read", r.remoteAddress(), signature.isEmpty()
                    ? "without X-Webhook-Hmac (set the webhook's hmac.key in WAHA to platforms.waha.hmac_key)"
                    : !algorithm.equals("sha512") ? "with X-Webhook-Hmac-Algorithm other than sha512" : "with a malformed X-Webhook-Hmac");
            return InboundHttp.Response.text(401, "missing or malformed signature");
        }
        if (!MessageDigest.isEqual(HexFormat.of().parseHex(signature), hmac(r.body()))) {
            log.warn("waha - webhook call from {} with a wrong X-Webhook-Hmac ({} bytes; not signed with platforms.waha.hmac_key); "
                    + "refused (401), nothing read", r.remoteAddress(), r.body().length);
            return InboundHttp.Response.text(401, "bad signature");
        }
        Instant now = clock.instant();
        WahaEvents.Parsed parsed;
        try {
            parsed = events.parse(r.body(), now, me.get());
        } catch (java.io.IOException e) {
            log.warn("waha - a signed webhook body is not JSON ({} bytes); skipped", r.body().length);
            return InboundHttp.Response.ok();
        }
        if (parsed.sentAt() == null) {
            log.warn("waha - a signed webhook event ({}) has no timestamp; refused (403): Herald cannot tell it from a replay",
                    parsed.eventId() == null ? "no id" : parsed.eventId());
            return InboundHttp.Response.text(403, "no timestamp");
        }
        Duration age = Duration.between(parsed.sentAt(), now);
        if (age.compareTo(maxEventAge) > 0 || age.negated().compareTo(maxEventAge) > 0) {
            log.warn("waha - webhook event {} is dated {}, more than {} from now; refused (403) as a replay (check both clocks if WAHA's is off)",
                    parsed.eventId() == null ? "(no id)" : parsed.eventId(), parsed.sentAt(), maxEventAge);
            return InboundHttp.Response.text(403, "stale event");
        }
        observer.accept(parsed);
        parsed.skipped().forEach(s -> log.info("waha - webhook: skipped {}", s));
        for (WahaEvents.Incoming in : parsed.messages()) {
            Admission a = receiver.apply(in);
            if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
                log.info("waha - message {} not taken ({}); answered 503 so that WAHA delivers it again", in.event().messageId(),
                        a == Admission.REJECTED_STOPPING ? "Herald is stopping" : "the store cannot write");
                return InboundHttp.Response.text(503, "not taken now; deliver again later");
            }
            log.debug("waha - message {} in {}: {}", in.event().messageId(), in.chatId(), a);
        }
        return InboundHttp.Response.ok();
    }

    private byte[] hmac(byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA512");
            mac.init(new SecretKeySpec(hmacKey, "HmacSHA512"));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA512 is not available", e);
        }
    }
}

package dev.herald.platforms.bluebubbles;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.InboundHttp;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The route BlueBubbles calls: {@code POST webhook?secret=<webhook_secret>}. BlueBubbles does not sign its webhook
 * calls, so the shared secret in the URL configured in the server is the only proof a call comes from it: it is
 * compared in constant time (as SHA-256 digests, so its length does not leak either) before the body is even parsed; a
 * missing or wrong secret is 401 and nothing is read or stored. The web layer logs the path only, never the query.
 *
 * <p>A message goes to the gateway; the answer is 200 once it was stored (or refused, or found to be a duplicate: the
 * store dedupes by the message guid, so a redelivery is answered once), and 503 when it was not taken (Herald stopping,
 * the store unable to write), so the server can deliver it again.
 */
final class BlueBubblesWebhook {
    private static final Logger log = LoggerFactory.getLogger(BlueBubblesWebhook.class);

    private final byte[] secretDigest;
    private final BlueBubblesEvents events;
    private final Clock clock;
    private final Function<BlueBubblesEvents.Incoming, Admission> receiver;

    BlueBubblesWebhook(BlueBubblesSettings settings, BlueBubblesEvents events, Clock clock,
            Function<BlueBubblesEvents.Incoming, Admission> receiver) {
        this.secretDigest = digest(settings.webhookSecretValue());
        this.events = events;
        this.clock = clock;
        this.receiver = receiver;
    }

    void serveOn(InboundHttp http) {
        http.route("POST", "webhook", this::receive);
    }

    /** One event: the secret first, then its message to the gateway; 200, 401 or 503 as the class comment says. */
    InboundHttp.Response receive(InboundHttp.Request r) {
        String given = r.query().get("secret");
        if (given == null || given.isEmpty()) {
            log.warn("bluebubbles - webhook call from {} without ?secret= in its URL; refused (401), nothing read (set the webhook URL in "
                    + "BlueBubbles to .../platforms/bluebubbles/webhook?secret=<platforms.bluebubbles.webhook_secret>)", r.remoteAddress());
            return InboundHttp.Response.text(401, "missing secret");
        }
        if (!MessageDigest.isEqual(digest(given), secretDigest)) {
            log.warn("bluebubbles - webhook call from {} with a wrong secret; refused (401), nothing read", r.remoteAddress());
            return InboundHttp.Response.text(401, "wrong secret");
        }
        BlueBubblesEvents.Parsed parsed;
        try {
            parsed = events.parse(r.body(), clock.instant());
        } catch (java.io.IOException e) {
            log.warn("bluebubbles - a webhook body is not JSON ({} bytes); skipped", r.body().length);
            return InboundHttp.Response.ok();
        }
        parsed.skipped().forEach(s -> log.debug("bluebubbles - webhook: skipped {}", s));
        for (BlueBubblesEvents.Incoming in : parsed.messages()) {
            Admission a = receiver.apply(in);
            if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
                log.info("bluebubbles - message {} not taken ({}); answered 503 so that it can be delivered again", in.event().messageId(),
                        a == Admission.REJECTED_STOPPING ? "Herald is stopping" : "the store cannot write");
                return InboundHttp.Response.text(503, "not taken now; deliver again later");
            }
            log.debug("bluebubbles - message {} in {}: {}", in.event().messageId(), in.chatGuid(), a);
        }
        return InboundHttp.Response.ok();
    }

    private static byte[] digest(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}

package dev.herald.platforms.whatsapp;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.InboundHttp;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.HexFormat;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two routes Meta calls: {@code GET webhook}, the subscription handshake ({@code hub.mode=subscribe}, the
 * {@code hub.verify_token} compared in constant time, {@code hub.challenge} echoed), and {@code POST webhook}, the
 * notifications. A notification's {@code X-Hub-Signature-256} (HMAC-SHA256 of the raw body with the app secret) is
 * checked in constant time before the body is even parsed: a missing or wrong one is 401 and nothing is read or stored.
 *
 * <p>A signed notification's messages go to the gateway one by one; the answer is 200 once each was stored (or
 * refused, or found to be a duplicate), and 503 as soon as one was not taken (Herald stopping, the store unable to
 * write), so Meta delivers the whole notification again later; the messages already stored are then duplicates,
 * dropped by the store's dedupe on their {@code wamid}.
 */
final class WhatsAppWebhook {
    private static final Logger log = LoggerFactory.getLogger(WhatsAppWebhook.class);
    private static final Pattern SIGNATURE = Pattern.compile("sha256=[0-9a-fA-F]{64}");
    private static final Pattern CHALLENGE = Pattern.compile("[A-Za-z0-9_.-]{1,256}");

    private final byte[] appSecret;
    private final byte[] verifyToken;
    private final WhatsAppEvents events;
    private final Clock clock;
    private final Function<WhatsAppEvents.Incoming, Admission> receiver;

    /** @param receiver hands one message to the gateway and says what became of it */
    WhatsAppWebhook(WhatsAppSettings settings, WhatsAppEvents events, Clock clock, Function<WhatsAppEvents.Incoming, Admission> receiver) {
        this.appSecret = settings.appSecretValue().getBytes(StandardCharsets.UTF_8);
        this.verifyToken = settings.verifyTokenValue().getBytes(StandardCharsets.UTF_8);
        this.events = events;
        this.clock = clock;
        this.receiver = receiver;
    }

    /** Serves both routes at {@code webhook} on {@code http}. */
    void serveOn(InboundHttp http) {
        http.route("GET", "webhook", this::verify);
        http.route("POST", "webhook", this::receive);
    }

    /** Meta's subscription handshake: the challenge back as text when the verify token is the configured one, else 403. */
    InboundHttp.Response verify(InboundHttp.Request r) {
        String mode = r.query().getOrDefault("hub.mode", "");
        String token = r.query().getOrDefault("hub.verify_token", "");
        String challenge = r.query().getOrDefault("hub.challenge", "");
        boolean tokenOk = MessageDigest.isEqual(verifyToken, token.getBytes(StandardCharsets.UTF_8));
        if (!mode.equals("subscribe") || !tokenOk || !CHALLENGE.matcher(challenge).matches()) {
            log.warn("whatsapp - webhook verification from {} refused (403): {}", r.remoteAddress(), !mode.equals("subscribe")
                    ? "hub.mode is not subscribe" : !tokenOk ? "hub.verify_token is not platforms.whatsapp.verify_token" : "no usable hub.challenge");
            return InboundHttp.Response.text(403, "verification failed");
        }
        log.info("whatsapp - webhook verified by Meta (subscription handshake from {})", r.remoteAddress());
        return InboundHttp.Response.text(200, challenge);
    }

    /** One notification: signature first, then its messages to the gateway; 200, 401 or 503 as the class comment says. */
    InboundHttp.Response receive(InboundHttp.Request r) {
        String signature = r.header("X-Hub-Signature-256").orElse("");
        if (!SIGNATURE.matcher(signature).matches()) {
            log.warn("whatsapp - webhook call from {} {}; refused (401), nothing read", r.remoteAddress(),
                    signature.isEmpty() ? "without X-Hub-Signature-256" : "with a malformed X-Hub-Signature-256");
            return InboundHttp.Response.text(401, "missing or malformed signature");
        }
        byte[] given = HexFormat.of().parseHex(signature.substring(7));
        if (!MessageDigest.isEqual(given, hmac(r.body()))) {
            log.warn("whatsapp - webhook call from {} with a wrong X-Hub-Signature-256 ({} bytes; not signed with "
                    + "platforms.whatsapp.app_secret); refused (401), nothing read", r.remoteAddress(), r.body().length);
            return InboundHttp.Response.text(401, "bad signature");
        }
        WhatsAppEvents.Parsed parsed;
        try {
            parsed = events.parse(r.body(), clock.instant());
        } catch (java.io.IOException e) {
            log.warn("whatsapp - a signed webhook body is not JSON ({} bytes); skipped", r.body().length);
            return InboundHttp.Response.ok();
        }
        parsed.skipped().forEach(s -> log.info("whatsapp - webhook: skipped {}", s));
        parsed.errors().forEach(e -> log.warn("whatsapp - Meta reported {}", e));
        for (WhatsAppEvents.Status s : parsed.statuses()) {
            if (s.status().equals("failed")) {
                log.warn("whatsapp - message {} to {} failed: {}", s.messageId(), s.recipient(),
                        s.errors().isEmpty() ? "no reason given" : String.join("; ", s.errors()));
            } else {
                log.debug("whatsapp - message {} to {}: {}", s.messageId(), s.recipient(), s.status());
            }
        }
        for (WhatsAppEvents.Incoming in : parsed.messages()) {
            Admission a = receiver.apply(in);
            if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
                log.info("whatsapp - message {} not taken ({}); answered 503 so that Meta delivers the notification again",
                        in.event().messageId(), a == Admission.REJECTED_STOPPING ? "Herald is stopping" : "the store cannot write");
                return InboundHttp.Response.text(503, "not taken now; deliver again later");
            }
            log.debug("whatsapp - message {} from {}: {}", in.event().messageId(), in.waId(), a);
        }
        return InboundHttp.Response.ok();
    }

    private byte[] hmac(byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(appSecret, "HmacSHA256"));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}

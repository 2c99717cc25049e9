package dev.herald.platforms.googlechat;

import com.nimbusds.jwt.JWTClaimsSet;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.InboundHttp;
import dev.herald.platforms.common.JwksVerifier;
import java.time.Clock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The route Google Chat calls: {@code POST events}. The bearer JWT is checked first ({@link JwksVerifier}): with a
 * project number as the audience, a token of issuer {@code chat@system.gserviceaccount.com} signed with that account's
 * keys; with the endpoint URL as the audience, a Google-signed ID token (issuer {@code accounts.google.com}) whose
 * verified {@code email} is {@code chat@system.gserviceaccount.com}. A call without a valid token is 401 and its body
 * is not read.
 *
 * <p>The answer is synchronous and empty ({@code {}}: no message in the response) as soon as the event is stored;
 * the reply goes out later through the Chat API. When the event was not taken (Herald stopping, the store unable to
 * write) the answer is 503, so that Google Chat tries again; 503 too while the signing keys cannot be fetched at all.
 */
final class GoogleChatWebhook {
    private static final Logger log = LoggerFactory.getLogger(GoogleChatWebhook.class);

    private final GoogleChatSettings settings;
    private final JwksVerifier verifier;
    private final GoogleChatEvents events;
    private final Clock clock;
    private final Function<GoogleChatEvents.Incoming, Admission> receiver;

    GoogleChatWebhook(GoogleChatSettings settings, JwksVerifier verifier, GoogleChatEvents events, Clock clock,
            Function<GoogleChatEvents.Incoming, Admission> receiver) {
        this.settings = settings;
        this.verifier = verifier;
        this.events = events;
        this.clock = clock;
        this.receiver = receiver;
    }

    void serveOn(InboundHttp http) {
        http.route("POST", "events", this::receive);
    }

    InboundHttp.Response receive(InboundHttp.Request r) {
        String token = JwksVerifier.bearer(r.header("Authorization").orElse(null));
        if (token == null) {
            log.warn("google_chat - a call from {} without a bearer token; refused (401), nothing read", r.remoteAddress());
            return InboundHttp.Response.text(401, "missing bearer token");
        }
        try {
            JWTClaimsSet claims = verifier.verify(token).claims();
            if (settings.endpointAudience()) {
                Object verified = claims.getClaim("email_verified");
                if (!GoogleChatSettings.CHAT_ISSUER.equals(claims.getStringClaim("email"))
                        || !(Boolean.TRUE.equals(verified) || "true".equals(verified))) {
                    throw new JwksVerifier.Rejected("the ID token is not Google Chat's (email is not a verified " + GoogleChatSettings.CHAT_ISSUER + ")");
                }
            }
        } catch (JwksVerifier.Rejected e) {
            log.warn("google_chat - a call from {} with a token that is not Google Chat's for this app: {}; refused (401), nothing read",
                    r.remoteAddress(), e.getMessage());
            return InboundHttp.Response.text(401, "invalid token");
        } catch (java.text.ParseException e) {
            log.warn("google_chat - a call from {} with an unreadable email claim; refused (401), nothing read", r.remoteAddress());
            return InboundHttp.Response.text(401, "invalid token");
        } catch (JwksVerifier.KeysUnavailable e) {
            log.warn("google_chat - a call from {} cannot be verified now: {}; answered 503 so that Google Chat tries again", r.remoteAddress(),
                    e.getMessage());
            return InboundHttp.Response.text(503, "cannot verify now");
        }
        GoogleChatEvents.Parsed parsed;
        try {
            parsed = events.parse(r.body(), clock.instant());
        } catch (java.io.IOException e) {
            log.warn("google_chat - a verified call's body is not JSON ({} bytes); refused (400)", r.body().length);
            return InboundHttp.Response.text(400, "not an event");
        }
        if (parsed.message() == null) {
            log.info("google_chat - skipped {}", parsed.skipped());
            return InboundHttp.Response.json(200, "{}");
        }
        GoogleChatEvents.Incoming in = parsed.message();
        Admission a = receiver.apply(in);
        if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
            log.info("google_chat - event {} not taken ({}); answered 503 so that Google Chat tries again", in.event().messageId(),
                    a == Admission.REJECTED_STOPPING ? "Herald is stopping" : "the store cannot write");
            return InboundHttp.Response.text(503, "not taken now; deliver again later");
        }
        log.debug("google_chat - event {} in {}: {}", in.event().messageId(), in.space(), a);
        return InboundHttp.Response.json(200, "{}");
    }
}

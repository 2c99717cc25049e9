package dev.herald.platforms.teams;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.InboundHttp;
import dev.herald.platforms.common.JwksVerifier;
import java.net.URI;
import java.time.Clock;
import java.util.Locale;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The route the Bot Connector calls: {@code POST messages}. As the Bot Framework's authentication document asks, the
 * {@code Authorization: Bearer} JWT is checked first ({@link JwksVerifier}: RS256 with a key from the OpenID metadata's
 * JWKS, issuer {@code https://api.botframework.com}, audience the app id, expiry and {@code nbf} with five minutes of
 * skew; a key that does not endorse {@code msteams} is refused): a call without a valid token is 401 and its body is
 * not read. Then the activity's {@code serviceUrl} must be the token's {@code serviceurl} claim and on
 * {@code service_url_hosts} (403 otherwise), so that a replayed token with a forged activity cannot make Herald post
 * elsewhere.
 *
 * <p>A message is answered 200 once stored (or refused, or found to be a duplicate by its activity id), 503 when it was
 * not taken (Herald stopping, the store unable to write), so the Connector delivers it again; 503 too while the signing
 * keys cannot be fetched at all.
 */
final class TeamsWebhook {
    private static final Logger log = LoggerFactory.getLogger(TeamsWebhook.class);

    private final JwksVerifier verifier;
    private final TeamsActivities activities;
    private final TeamsSettings settings;
    private final Clock clock;
    private final Function<TeamsActivities.Incoming, Admission> receiver;

    TeamsWebhook(TeamsSettings settings, JwksVerifier verifier, TeamsActivities activities, Clock clock,
            Function<TeamsActivities.Incoming, Admission> receiver) {
        this.settings = settings;
        this.verifier = verifier;
        this.activities = activities;
        this.clock = clock;
        this.receiver = receiver;
    }

    void serveOn(InboundHttp http) {
        http.route("POST", "messages", this::receive);
    }

    InboundHttp.Response receive(InboundHttp.Request r) {
        String token = JwksVerifier.bearer(r.header("Authorization").orElse(null));
        if (token == null) {
            log.warn("teams - a call from {} without a bearer token; refused (401), nothing read", r.remoteAddress());
            return InboundHttp.Response.text(401, "missing bearer token");
        }
        JwksVerifier.Verified v;
        try {
            v = verifier.verify(token);
        } catch (JwksVerifier.Rejected e) {
            log.warn("teams - a call from {} with a token that is not the Bot Framework's for this bot: {}; refused (401), nothing read",
                    r.remoteAddress(), e.getMessage());
            return InboundHttp.Response.text(401, "invalid token");
        } catch (JwksVerifier.KeysUnavailable e) {
            log.warn("teams - a call from {} cannot be verified now: {}; answered 503 so that the Connector delivers it again",
                    r.remoteAddress(), e.getMessage());
            return InboundHttp.Response.text(503, "cannot verify now");
        }
        if (!v.endorsements().isEmpty() && !v.endorsements().contains("msteams")) {
            log.warn("teams - a call from {} signed by a key that does not endorse msteams; refused (403)", r.remoteAddress());
            return InboundHttp.Response.text(403, "key not endorsed for msteams");
        }
        String claimed;
        try {
            claimed = v.claims().getStringClaim("serviceurl");
        } catch (java.text.ParseException e) {
            claimed = null;
        }
        TeamsActivities.Parsed parsed;
        try {
            parsed = activities.parse(r.body(), clock.instant());
        } catch (java.io.IOException e) {
            log.warn("teams - a verified call's body is not JSON ({} bytes); refused (400)", r.body().length);
            return InboundHttp.Response.text(400, "not an activity");
        }
        if (parsed.message() == null) {
            log.info("teams - skipped {}", parsed.skipped());
            return InboundHttp.Response.ok();
        }
        TeamsActivities.Incoming in = parsed.message();
        if (claimed == null || !sameUrl(claimed, in.serviceUrl())) {
            log.warn("teams - activity {} names serviceUrl {} but its token {}; refused (403)", in.activityId(), clip(in.serviceUrl()),
                    claimed == null ? "has no serviceurl claim" : "names " + clip(claimed));
            return InboundHttp.Response.text(403, "serviceUrl does not match the token");
        }
        if (!TeamsConnector.allowed(in.serviceUrl(), settings.serviceUrlHosts())) {
            log.warn("teams - activity {} names serviceUrl {}, which is not on platforms.teams.service_url_hosts {}; refused (403)",
                    in.activityId(), clip(in.serviceUrl()), settings.serviceUrlHosts());
            return InboundHttp.Response.text(403, "serviceUrl not allowed");
        }
        Admission a = receiver.apply(in);
        if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
            log.info("teams - activity {} not taken ({}); answered 503 so that the Connector delivers it again", in.activityId(),
                    a == Admission.REJECTED_STOPPING ? "Herald is stopping" : "the store cannot write");
            return InboundHttp.Response.text(503, "not taken now; deliver again later");
        }
        log.debug("teams - activity {} in {}: {}", in.activityId(), in.conversationId(), a);
        return InboundHttp.Response.ok();
    }

    /** Two serviceUrls are the same when they differ at most in a trailing slash and the case of scheme and host. */
    static boolean sameUrl(String a, String b) {
        try {
            URI x = URI.create(a.endsWith("/") ? a : a + "/");
            URI y = URI.create(b.endsWith("/") ? b : b + "/");
            return x.getScheme() != null && y.getScheme() != null && x.getScheme().equalsIgnoreCase(y.getScheme()) && x.getHost() != null
                    && y.getHost() != null && x.getHost().toLowerCase(Locale.ROOT).equals(y.getHost().toLowerCase(Locale.ROOT))
                    && x.getPort() == y.getPort() && x.getRawPath().equals(y.getRawPath()) && x.getRawQuery() == null && y.getRawQuery() == null
                    && x.getRawUserInfo() == null && y.getRawUserInfo() == null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String clip(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 120 ? clean.substring(0, 120) + "..." : clean;
    }
}

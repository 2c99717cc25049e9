package dev.herald.platforms.sms;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Twilio's request signature ({@code X-Twilio-Signature}): the base64 HMAC-SHA1, keyed with the account's auth token, of
 * the full URL Twilio called (scheme, host, path and query, exactly as configured on the number) followed by every POST
 * parameter's name and value, sorted by name. Checked in constant time.
 *
 * <p>The URL: behind a proxy Herald is not called at the URL Twilio signed, so the configured {@code public_url}
 * replaces the scheme, host and port (and adds its path prefix); without it the URL as requested is used. Twilio's
 * own libraries accept a signature made with or without the default port ({@code :443}, {@code :80}); so does this.
 */
final class TwilioSignature {
    private final byte[] key;

    TwilioSignature(String authToken) {
        this.key = authToken.getBytes(StandardCharsets.UTF_8);
    }

    /** The signature of {@code url} and {@code form}, as Twilio sends it. */
    String sign(String url, TwilioForm form) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(key, "HmacSHA1"));
            return Base64.getEncoder().encodeToString(mac.doFinal((url + form.signedSuffix()).getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 is not available", e);
        }
    }

    /** Whether {@code given} is the signature of {@code url} (or its form with or without the default port) and {@code form}. */
    boolean valid(String given, String url, TwilioForm form) {
        byte[] g = given.getBytes(StandardCharsets.UTF_8);
        boolean ok = false;
        for (String u : variants(url)) {
            ok |= MessageDigest.isEqual(g, sign(u, form).getBytes(StandardCharsets.UTF_8));
        }
        return ok;
    }

    /**
     * The URL Twilio signed for a request addressed as {@code requestUrl}: with {@code publicBase} (no trailing slash),
     * the public base followed by the request's path and query; else the request URL itself.
     */
    static String signedUrl(String requestUrl, String publicBase) {
        if (publicBase == null) {
            return requestUrl;
        }
        URI r = URI.create(requestUrl);
        return publicBase + (r.getRawPath() == null ? "" : r.getRawPath()) + (r.getRawQuery() == null ? "" : "?" + r.getRawQuery());
    }

    /** {@code url}, and it with the scheme's default port added or removed. */
    static List<String> variants(String url) {
        List<String> out = new ArrayList<>();
        out.add(url);
        try {
            URI u = URI.create(url);
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            int defaultPort = scheme.equals("https") ? 443 : scheme.equals("http") ? 80 : -1;
            if (u.getRawAuthority() == null || defaultPort < 0) {
                return out;
            }
            String rest = url.substring(url.indexOf(u.getRawAuthority()) + u.getRawAuthority().length());
            String head = u.getScheme() + "://" + (u.getRawUserInfo() == null ? "" : u.getRawUserInfo() + "@");
            String host = u.getHost() == null ? null : u.getRawAuthority().replaceFirst("^.*@", "").replaceFirst(":[0-9]*$", "");
            if (host == null) {
                return out;
            }
            if (u.getPort() == defaultPort) {
                out.add(head + host + rest);
            } else if (u.getPort() == -1) {
                out.add(head + host + ":" + defaultPort + rest);
            }
        } catch (IllegalArgumentException e) {
            // not a URI: only the URL as it is
        }
        return out;
    }
}

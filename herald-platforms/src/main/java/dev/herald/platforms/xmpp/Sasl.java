package dev.herald.platforms.xmpp;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * SASL for the XMPP login (RFC 6120, section 6): SCRAM-SHA-256 or SCRAM-SHA-1 (RFC 5802/7677, without channel
 * binding) when the server offers them, PLAIN otherwise (only over TLS, or over a plain connection to a loopback
 * host, which the settings allow for tests). Usernames and passwords are sent as given (no SASLprep: ASCII
 * credentials are unaffected). One instance per login attempt.
 */
final class Sasl {
    /** The mechanisms Herald speaks, best first. */
    static final List<String> PREFERENCE = List.of("SCRAM-SHA-256", "SCRAM-SHA-1", "PLAIN");

    private final String mechanism;
    private final String user;
    private final String password;
    private String clientFirstBare;
    private String nonce;
    private byte[] serverSignature;

    Sasl(String mechanism, String user, String password) {
        this.mechanism = mechanism;
        this.user = user;
        this.password = password;
    }

    /** The best mechanism among {@code offered}, or null when none is one Herald speaks (or PLAIN is not allowed). */
    static String choose(List<String> offered, boolean plainAllowed) {
        for (String m : PREFERENCE) {
            if (offered.contains(m) && (plainAllowed || !m.equals("PLAIN"))) {
                return m;
            }
        }
        return null;
    }

    String mechanism() {
        return mechanism;
    }

    /** The initial response, base64. */
    String initial() {
        if (mechanism.equals("PLAIN")) {
            return b64(("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8));
        }
        byte[] n = new byte[18];
        new SecureRandom().nextBytes(n);
        nonce = Base64.getEncoder().withoutPadding().encodeToString(n).replace('+', '-').replace('/', '_');
        clientFirstBare = "n=" + user.replace("=", "=3D").replace(",", "=2C") + ",r=" + nonce;
        return b64(("n,," + clientFirstBare).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The answer to the server's challenge (base64 in, base64 out).
     *
     * @throws IllegalStateException when the challenge is not a SCRAM server-first message for this login
     */
    String respond(String challenge) {
        if (mechanism.equals("PLAIN")) {
            throw new IllegalStateException("PLAIN takes no challenge");
        }
        String serverFirst = new String(Base64.getMimeDecoder().decode(challenge.strip()), StandardCharsets.UTF_8);
        Map<String, String> f = fields(serverFirst);
        String r = f.get("r");
        String s = f.get("s");
        int iterations;
        try {
            iterations = Integer.parseInt(f.getOrDefault("i", ""));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the SCRAM challenge has no iteration count");
        }
        if (r == null || s == null || !r.startsWith(nonce) || iterations < 1 || iterations > 1_000_000) {
            throw new IllegalStateException("the SCRAM challenge is not for this login (nonce, salt or iterations missing or wrong)");
        }
        String algorithm = mechanism.equals("SCRAM-SHA-256") ? "SHA-256" : "SHA-1";
        String hmac = mechanism.equals("SCRAM-SHA-256") ? "HmacSHA256" : "HmacSHA1";
        try {
            byte[] salted = hi(hmac, password.getBytes(StandardCharsets.UTF_8), Base64.getDecoder().decode(s), iterations);
            byte[] clientKey = mac(hmac, salted, "Client Key");
            byte[] storedKey = MessageDigest.getInstance(algorithm).digest(clientKey);
            String withoutProof = "c=biws,r=" + r;
            String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
            byte[] signature = mac(hmac, storedKey, authMessage);
            byte[] proof = new byte[clientKey.length];
            for (int i = 0; i < proof.length; i++) {
                proof[i] = (byte) (clientKey[i] ^ signature[i]);
            }
            serverSignature = mac(hmac, mac(hmac, salted, "Server Key"), authMessage);
            return b64((withoutProof + ",p=" + b64(proof)).getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("the SCRAM challenge could not be answered (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** True when the server's final message (base64, may be empty for PLAIN) proves it knew the password. */
    boolean verify(String success) {
        if (mechanism.equals("PLAIN")) {
            return true;
        }
        if (serverSignature == null || success == null || success.isBlank()) {
            return false;
        }
        try {
            String v = fields(new String(Base64.getMimeDecoder().decode(success.strip()), StandardCharsets.UTF_8)).get("v");
            return v != null && MessageDigest.isEqual(Base64.getDecoder().decode(v), serverSignature);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Map<String, String> fields(String message) {
        Map<String, String> out = new HashMap<>();
        for (String part : message.split(",")) {
            if (part.length() >= 2 && part.charAt(1) == '=') {
                out.putIfAbsent(part.substring(0, 1), part.substring(2));
            }
        }
        return out;
    }

    private static byte[] hi(String hmac, byte[] password, byte[] salt, int iterations) throws GeneralSecurityException {
        Mac mac = Mac.getInstance(hmac);
        mac.init(new SecretKeySpec(password, hmac));
        mac.update(salt);
        byte[] u = mac.doFinal(new byte[] {0, 0, 0, 1});
        byte[] out = u.clone();
        for (int i = 1; i < iterations; i++) {
            u = mac.doFinal(u);
            for (int j = 0; j < out.length; j++) {
                out[j] ^= u[j];
            }
        }
        return out;
    }

    private static byte[] mac(String hmac, byte[] key, String data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance(hmac);
        mac.init(new SecretKeySpec(key, hmac));
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }

    private static String b64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }
}

package dev.herald.platforms.feishu;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The open platform's event encryption and signature, as its "接收事件" (receive events) page describes them. With an
 * Encrypt Key set, a body is {@code {"encrypt": base64(IV(16 bytes) + AES-256-CBC(event JSON))}} with the AES key the
 * SHA-256 of the Encrypt Key and PKCS#7 padding, and the request carries {@code X-Lark-Signature}: the lower-case hex
 * SHA-256 of {@code timestamp + nonce + encrypt_key + raw body}, compared here in constant time. The key and plaintext
 * never reach an exception's message.
 */
final class FeishuCrypto {
    /** A refused request: the HTTP status to answer and a reason safe to log. */
    static final class Refused extends Exception {
        final int status;

        Refused(int status, String reason) {
            super(reason, null, false, false);
            this.status = status;
        }
    }

    /** The largest ciphertext Herald decrypts (the web layer caps bodies at 1 MiB anyway). */
    private static final int MAX_ENCRYPTED = 1_400_000;

    private final String encryptKey;
    private final SecretKeySpec aesKey;

    FeishuCrypto(String encryptKey) {
        this.encryptKey = encryptKey;
        this.aesKey = new SecretKeySpec(sha256(encryptKey.getBytes(StandardCharsets.UTF_8)), "AES");
    }

    /** Whether {@code signature} is the SHA-256 hex of timestamp + nonce + encrypt_key + body (constant-time compare). */
    boolean signed(String signature, String timestamp, String nonce, byte[] body) {
        byte[] prefix = (timestamp + nonce + encryptKey).getBytes(StandardCharsets.UTF_8);
        byte[] all = Arrays.copyOf(prefix, prefix.length + body.length);
        System.arraycopy(body, 0, all, prefix.length, body.length);
        byte[] expected = HexFormat.of().formatHex(sha256(all)).getBytes(StandardCharsets.US_ASCII);
        byte[] given = signature.toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, given);
    }

    /** The plaintext of an {@code encrypt} field; 400 for anything that is not the platform's encryption with this key. */
    byte[] decrypt(String encrypted) throws Refused {
        if (encrypted.length() > MAX_ENCRYPTED) {
            throw new Refused(413, "the encrypted event is too large");
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(encrypted.strip());
        } catch (IllegalArgumentException e) {
            throw new Refused(400, "the encrypt field is not Base64");
        }
        if (raw.length < 32 || raw.length % 16 != 0) {
            throw new Refused(400, "the encrypt field is not an IV and AES-CBC blocks (" + raw.length + " bytes)");
        }
        try {
            Cipher c = Cipher.getInstance("AES/CBC/PKCS5Padding"); // PKCS#5 in the JDK's name is PKCS#7 for 16-byte blocks
            c.init(Cipher.DECRYPT_MODE, aesKey, new IvParameterSpec(raw, 0, 16));
            return c.doFinal(raw, 16, raw.length - 16);
        } catch (GeneralSecurityException e) {
            throw new Refused(400, "the encrypt field does not decrypt with platforms.feishu.encrypt_key (bad padding)");
        }
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}

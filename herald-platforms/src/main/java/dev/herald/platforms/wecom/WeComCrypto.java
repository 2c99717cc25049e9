package dev.herald.platforms.wecom;

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
 * WeCom's callback crypto, from its "加解密方案说明": the signature {@code msg_signature} is the hex SHA-1 of the token, the
 * {@code timestamp}, the {@code nonce} and the encrypted text, sorted as strings and joined; the encrypted text is Base64 of
 * AES-256-CBC with the key {@code Base64(EncodingAESKey + "=")} (32 bytes), the IV its first 16 bytes, PKCS#7 padding to
 * 32-byte blocks, over {@code 16 random bytes + 4-byte big-endian length + message + receiveid} (the CorpID). Every
 * failure is a {@link Refused} that names what was wrong and never the key.
 */
final class WeComCrypto {
    /** A callback that is not WeCom's: forged, damaged, or for another company. */
    static final class Refused extends Exception {
        final int status;

        Refused(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    private final byte[] token;
    private final byte[] key;
    private final String corpId;

    WeComCrypto(String token, String encodingAesKey, String corpId) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
        byte[] k;
        try {
            k = Base64.getDecoder().decode(encodingAesKey + "=");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("wecom - platforms.wecom.encoding_aes_key is not the 43-character key WeCom shows");
        }
        if (k.length != 32) {
            throw new IllegalArgumentException("wecom - platforms.wecom.encoding_aes_key is not the 43-character key WeCom shows");
        }
        this.key = k;
        this.corpId = corpId;
    }

    /** The hex SHA-1 WeCom signs with: of the four strings sorted and joined. */
    static String signature(String token, String timestamp, String nonce, String encrypted) {
        String[] parts = {token, timestamp, nonce, encrypted};
        Arrays.sort(parts);
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(sha1.digest(String.join("", parts).getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }

    /** Whether {@code given} is the signature of these values with the configured token, compared in constant time. */
    boolean signed(String given, String timestamp, String nonce, String encrypted) {
        String expected = signature(new String(token, StandardCharsets.UTF_8), timestamp, nonce, encrypted);
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                given.toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
    }

    /** The message inside {@code encrypted}, once its receiveid was found to be the configured CorpID. */
    byte[] decrypt(String encrypted) throws Refused {
        byte[] data;
        try {
            data = Base64.getDecoder().decode(encrypted.strip());
        } catch (IllegalArgumentException e) {
            throw new Refused(400, "the encrypted text is not Base64");
        }
        if (data.length == 0 || data.length % 16 != 0 || data.length > 2 * 1024 * 1024) {
            throw new Refused(400, "the encrypted text is not whole AES blocks (" + data.length + " bytes)");
        }
        byte[] plain;
        try {
            Cipher c = Cipher.getInstance("AES/CBC/NoPadding");
            c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(key, 0, 16));
            plain = c.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new Refused(400, "the encrypted text could not be decrypted");
        }
        int pad = plain[plain.length - 1] & 0xff;
        if (pad < 1 || pad > 32 || pad > plain.length) {
            throw new Refused(400, "the decrypted text has no valid padding (not encrypted with platforms.wecom.encoding_aes_key)");
        }
        for (int i = plain.length - pad; i < plain.length; i++) {
            if ((plain[i] & 0xff) != pad) {
                throw new Refused(400, "the decrypted text has no valid padding (not encrypted with platforms.wecom.encoding_aes_key)");
            }
        }
        int end = plain.length - pad;
        if (end < 20) {
            throw new Refused(400, "the decrypted text is too short");
        }
        long length = ((plain[16] & 0xffL) << 24) | ((plain[17] & 0xff) << 16) | ((plain[18] & 0xff) << 8) | (plain[19] & 0xff);
        if (length > end - 20) {
            throw new Refused(400, "the decrypted text names a length of " + length + " bytes but holds " + (end - 20));
        }
        int msgEnd = 20 + (int) length;
        String receiveId = new String(plain, msgEnd, end - msgEnd, StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(receiveId.getBytes(StandardCharsets.UTF_8), corpId.getBytes(StandardCharsets.UTF_8))) {
            throw new Refused(403, "it is for another company (receiveid is not platforms.wecom.corp_id)");
        }
        return Arrays.copyOfRange(plain, 20, msgEnd);
    }
}

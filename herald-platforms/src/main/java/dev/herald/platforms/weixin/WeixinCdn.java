package dev.herald.platforms.weixin;

import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;

/**
 * WeChat's media CDN as the iLink bot API uses it: every file there is AES-128-ECB with PKCS#7 padding under a random
 * per-file key that travels in the message item.
 * <ul>
 *   <li>download: {@code GET <cdn_base>/download?encrypted_query_param=<the item's media.encrypt_query_param>}, then decrypt
 *       with the item's key ({@code image_item.aeskey} as 32 hex digits, else {@code media.aes_key}: base64 of the 16 raw
 *       bytes, or base64 of their 32 hex digits);</li>
 *   <li>upload: after {@code getuploadurl} answered an {@code upload_param}, {@code POST <cdn_base>/upload?encrypted_query_param=
 *       <upload_param>&filekey=<filekey>} with the ciphertext as {@code application/octet-stream}; the answer's
 *       {@code x-encrypted-param} header is the download parameter the sent item names.</li>
 * </ul>
 * Only the configured CDN host is ever contacted: a {@code full_url} in an item, or an {@code upload_full_url} on another
 * host, is not followed.
 */
final class WeixinCdn {
    static final String DEFAULT_CDN_BASE = "https://novac2c.cdn.weixin.qq.com/c2c";
    private static final Pattern HEX_KEY = Pattern.compile("[0-9a-fA-F]{32}");
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final String base;
    private final String host;
    private final FileDownload download;
    private final JsonHttp http;
    private final SecureRandom random = new SecureRandom();

    WeixinCdn(String cdnBase) {
        this.base = cdnBase.endsWith("/") ? cdnBase.substring(0, cdnBase.length() - 1) : cdnBase;
        this.host = FileDownload.host(URI.create(base));
        this.download = new FileDownload("weixin", Set.of(host), Duration.ofSeconds(10));
        this.http = new JsonHttp(Duration.ofSeconds(10), List.of());
    }

    /** A new random 16-byte file key. */
    byte[] newKey() {
        byte[] k = new byte[16];
        random.nextBytes(k);
        return k;
    }

    /** A new random file key for getuploadurl ({@code filekey}, 32 hex digits). */
    String newFileKey() {
        return HexFormat.of().formatHex(newKey());
    }

    /**
     * The 16-byte key of a media item: {@code hexKey} (32 hex digits) when given, else {@code aesKey} decoded from base64 to
     * 16 bytes or to 32 hex digits.
     *
     * @throws IOException naming what is wrong with the key (never the key itself)
     */
    static byte[] key(String hexKey, String aesKey) throws IOException {
        if (hexKey != null && HEX_KEY.matcher(hexKey).matches()) {
            return HexFormat.of().parseHex(hexKey);
        }
        if (aesKey == null || aesKey.isBlank()) {
            throw new IOException("it carries no decryption key");
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(aesKey.strip());
        } catch (IllegalArgumentException e) {
            throw new IOException("its decryption key is not base64");
        }
        if (raw.length == 16) {
            return raw;
        }
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        if (raw.length == 32 && HEX_KEY.matcher(text).matches()) {
            return HexFormat.of().parseHex(text);
        }
        throw new IOException("its decryption key is " + raw.length + " bytes, not an AES-128 key");
    }

    /** The key as the API wants it in a sent item's {@code media.aes_key}: base64 of its 32 hex digits. */
    static String itemKey(byte[] key) {
        return Base64.getEncoder().encodeToString(HexFormat.of().formatHex(key).getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] encrypt(byte[] plain, byte[] key) {
        try {
            Cipher c = Cipher.getInstance("AES/ECB/PKCS5Padding"); // the protocol's cipher: PKCS#5 is PKCS#7 for 16-byte blocks
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"));
            return c.doFinal(plain);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-128-ECB is not available in this JVM", e);
        }
    }

    /** @throws IOException when the bytes are not a whole ciphertext under {@code key} */
    static byte[] decrypt(byte[] cipher, byte[] key) throws IOException {
        if (cipher.length == 0 || cipher.length % 16 != 0) {
            throw new IOException("it could not be decrypted (" + cipher.length + " bytes is not a whole number of AES blocks)");
        }
        try {
            Cipher c = Cipher.getInstance("AES/ECB/PKCS5Padding");
            c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"));
            return c.doFinal(cipher);
        } catch (GeneralSecurityException e) {
            throw new IOException("it could not be decrypted with its key (bad padding)");
        }
    }

    /** The ciphertext size of {@code plainSize} bytes (PKCS#7 always adds 1 to 16 bytes). */
    static long cipherSize(long plainSize) {
        return (plainSize / 16 + 1) * 16;
    }

    /** Downloads and decrypts one file of at most {@code maxBytes} (plaintext). */
    byte[] fetch(String encryptQueryParam, byte[] key, long maxBytes) throws IOException {
        if (encryptQueryParam == null || encryptQueryParam.isBlank() || encryptQueryParam.length() > 4096) {
            throw new IOException("it names no CDN download parameter");
        }
        String url = base + "/download?encrypted_query_param=" + URLEncoder.encode(encryptQueryParam, StandardCharsets.UTF_8);
        byte[] cipher;
        try {
            cipher = download.get(url, Map.of(), cipherSize(maxBytes), TIMEOUT).bytes();
        } catch (IOException e) {
            String why = String.valueOf(e.getMessage()).replaceFirst("^weixin - ", "");
            throw new IOException(why.contains("-byte limit") ? overLimit(maxBytes) : why);
        }
        byte[] plain = decrypt(cipher, key);
        if (plain.length > maxBytes) {
            throw new IOException(overLimit(maxBytes));
        }
        return plain;
    }

    private static String overLimit(long maxBytes) {
        return "it is over the " + maxBytes + "-byte limit (platforms.weixin.max_file_bytes)";
    }

    /**
     * Uploads {@code cipher} where getuploadurl said: {@code uploadParam} on the configured CDN, else {@code uploadFullUrl}
     * when it is on the CDN's host. Returns the download parameter ({@code x-encrypted-param}).
     */
    String upload(String uploadParam, String uploadFullUrl, String fileKey, byte[] cipher) throws IOException {
        String url;
        if (uploadParam != null && !uploadParam.isBlank()) {
            url = base + "/upload?encrypted_query_param=" + URLEncoder.encode(uploadParam, StandardCharsets.UTF_8) + "&filekey="
                    + URLEncoder.encode(fileKey, StandardCharsets.UTF_8);
        } else if (uploadFullUrl != null && !uploadFullUrl.isBlank()) {
            URI u;
            try {
                u = URI.create(uploadFullUrl.strip());
            } catch (IllegalArgumentException e) {
                throw new IOException("getuploadurl answered an upload URL that is not a URL");
            }
            if (!FileDownload.host(u).equals(host)) {
                throw new IOException("getuploadurl answered an upload URL on " + FileDownload.host(u) + ", not the CDN host " + host
                        + " (platforms.weixin.cdn_base); not uploaded there");
            }
            url = u.toString();
        } else {
            throw new IOException("getuploadurl answered neither upload_param nor upload_full_url");
        }
        JsonHttp.Reply r = http.send(url, "POST", "application/octet-stream", cipher, Map.of(), TIMEOUT);
        if (r.status() != 200) {
            throw new IOException("the CDN upload answered HTTP " + r.status()
                    + r.header("x-error-message").map(m -> ": " + clip(m)).orElse(""));
        }
        return r.header("x-encrypted-param").filter(p -> !p.isBlank())
                .orElseThrow(() -> new IOException("the CDN upload answered without an x-encrypted-param header"));
    }

    /** Short, single-line text from a header. */
    private static String clip(String s) {
        String one = s.replaceAll("\\p{Cntrl}", " ").strip();
        return one.length() > 160 ? one.substring(0, 160) + "..." : one;
    }
}

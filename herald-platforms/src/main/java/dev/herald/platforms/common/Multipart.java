package dev.herald.platforms.common;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A {@code multipart/form-data} body (RFC 7578): text fields and files, for the platforms' upload calls. Field names and
 * file names are written with {@code "}, CR and LF percent-encoded as browsers do, so a hostile file name cannot end its
 * header or start a part of its own; the boundary is random, so no file's bytes can contain it by design.
 */
public final class Multipart {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final String boundary = "herald-" + HexFormat.of().formatHex(random());
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private static byte[] random() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return b;
    }

    /** Adds a text field. */
    public Multipart field(String name, String value) {
        write("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + quoted(name) + "\"\r\n"
                + "Content-Type: text/plain; charset=UTF-8\r\n\r\n");
        write(value);
        write("\r\n");
        return this;
    }

    /** Adds a file field. */
    public Multipart file(String name, String fileName, String contentType, byte[] bytes) {
        write("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + quoted(name) + "\"; filename=\"" + quoted(fileName)
                + "\"\r\nContent-Type: " + contentType.replaceAll("[\\r\\n]", "") + "\r\n\r\n");
        out.writeBytes(bytes);
        write("\r\n");
        return this;
    }

    /** The value of the request's Content-Type header. */
    public String contentType() {
        return "multipart/form-data; boundary=" + boundary;
    }

    /** The body, closed. */
    public byte[] body() {
        ByteArrayOutputStream copy = new ByteArrayOutputStream(out.size() + boundary.length() + 8);
        copy.writeBytes(out.toByteArray());
        copy.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return copy.toByteArray();
    }

    private void write(String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    static String quoted(String s) {
        return s.replace("\"", "%22").replace("\r", "%0D").replace("\n", "%0A");
    }
}

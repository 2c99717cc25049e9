package dev.herald.platforms;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A {@code multipart/form-data} body as a fake platform server reads it: its text fields and its files. */
public record MultipartForm(Map<String, String> fields, List<FilePart> files) {

    /** One uploaded file as the chat would show it. */
    public record FilePart(String field, String fileName, String contentType, byte[] bytes) {
    }

    /** Parses {@code body} sent with {@code contentType}; throws when it is not well-formed multipart. */
    public static MultipartForm parse(String contentType, byte[] body) {
        int at = contentType.indexOf("boundary=");
        if (!contentType.startsWith("multipart/form-data") || at < 0) {
            throw new IllegalArgumentException("not multipart/form-data: " + contentType);
        }
        byte[] delimiter = ("--" + contentType.substring(at + 9).replace("\"", "")).getBytes(StandardCharsets.ISO_8859_1);
        Map<String, String> fields = new LinkedHashMap<>();
        List<FilePart> files = new ArrayList<>();
        int pos = indexOf(body, delimiter, 0);
        while (pos >= 0) {
            int start = pos + delimiter.length;
            if (start + 1 < body.length && body[start] == '-' && body[start + 1] == '-') {
                break;
            }
            start += 2; // CRLF
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), start);
            String headers = new String(body, start, headersEnd - start, StandardCharsets.UTF_8);
            int next = indexOf(body, delimiter, headersEnd + 4);
            byte[] content = java.util.Arrays.copyOfRange(body, headersEnd + 4, next - 2);
            String name = param(headers, "name");
            String fileName = param(headers, "filename");
            if (fileName == null) {
                fields.put(name, new String(content, StandardCharsets.UTF_8));
            } else {
                String type = headers.lines().filter(l -> l.toLowerCase().startsWith("content-type:")).map(l -> l.substring(13).strip())
                        .findFirst().orElse(null);
                files.add(new FilePart(name, fileName, type, content));
            }
            pos = next;
        }
        return new MultipartForm(fields, files);
    }

    private static String param(String headers, String key) {
        int i = headers.indexOf("; " + key + "=\"");
        if (i < 0) {
            return null;
        }
        int from = i + key.length() + 4;
        return headers.substring(from, headers.indexOf('"', from));
    }

    private static int indexOf(byte[] hay, byte[] needle, int from) {
        outer:
        for (int i = from; i <= hay.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}

package dev.herald.platforms.feishu;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One frame of the open platform's long connection: the {@code pbbp2.Frame} protocol-buffers message, encoded and
 * decoded here by hand (no protobuf library). Fields: 1 {@code SeqID} (uint64), 2 {@code LogID} (uint64), 3
 * {@code service} (int32), 4 {@code method} (int32: {@value #CONTROL} control, {@value #DATA} data), 5 {@code headers}
 * (repeated {@code Header}: 1 key, 2 value, both strings), 6 {@code payload_encoding}, 7 {@code payload_type} (strings),
 * 8 {@code payload} (bytes), 9 {@code LogIDNew} (string). Header types: {@code ping}, {@code pong} (control),
 * {@code event}, {@code card} (data); a data frame also carries {@code message_id}, {@code sum}, {@code seq} and
 * {@code trace_id}.
 *
 * <p>Decoding refuses, with {@link Malformed} naming the problem, a truncated varint or length, a length past the
 * end, a wire type the message does not use, and more than {@value #MAX_HEADERS} headers; unknown fields of a known wire
 * type are skipped, as protocol buffers require.
 */
record FeishuFrame(long seqId, long logId, int service, int method, List<Header> headers, String payloadEncoding, String payloadType,
        byte[] payload, String logIdNew) {
    static final int CONTROL = 0;
    static final int DATA = 1;
    static final int MAX_HEADERS = 64;

    /** One header of a frame. */
    record Header(String key, String value) {
        Header {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }
    }

    /** Bytes that are not a pbbp2 frame. */
    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    FeishuFrame {
        headers = List.copyOf(headers);
        payloadEncoding = payloadEncoding == null ? "" : payloadEncoding;
        payloadType = payloadType == null ? "" : payloadType;
        payload = payload == null ? new byte[0] : payload;
        logIdNew = logIdNew == null ? "" : logIdNew;
    }

    /** A control frame of {@code type} (ping, pong) for {@code service}. */
    static FeishuFrame control(int service, String type, byte[] payload) {
        return new FeishuFrame(0, 0, service, CONTROL, List.of(new Header("type", type)), "", "", payload, "");
    }

    /** The first value of header {@code key}, or "" when absent. */
    String header(String key) {
        for (Header h : headers) {
            if (h.key().equals(key)) {
                return h.value();
            }
        }
        return "";
    }

    /** This frame with {@code payload} and one more header: how a data frame is answered. */
    FeishuFrame answer(byte[] newPayload, String key, String value) {
        List<Header> all = new ArrayList<>(headers);
        all.add(new Header(key, value));
        return new FeishuFrame(seqId, logId, service, method, all, payloadEncoding, payloadType, newPayload, logIdNew);
    }

    byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(32 + payload.length);
        varintField(out, 1, seqId);
        varintField(out, 2, logId);
        varintField(out, 3, service);
        varintField(out, 4, method);
        for (Header h : headers) {
            ByteArrayOutputStream one = new ByteArrayOutputStream();
            bytesField(one, 1, h.key().getBytes(StandardCharsets.UTF_8));
            bytesField(one, 2, h.value().getBytes(StandardCharsets.UTF_8));
            bytesField(out, 5, one.toByteArray());
        }
        if (!payloadEncoding.isEmpty()) {
            bytesField(out, 6, payloadEncoding.getBytes(StandardCharsets.UTF_8));
        }
        if (!payloadType.isEmpty()) {
            bytesField(out, 7, payloadType.getBytes(StandardCharsets.UTF_8));
        }
        if (payload.length > 0) {
            bytesField(out, 8, payload);
        }
        if (!logIdNew.isEmpty()) {
            bytesField(out, 9, logIdNew.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    static FeishuFrame decode(byte[] bytes) throws Malformed {
        Reader r = new Reader(bytes, 0, bytes.length);
        long seq = 0;
        long log = 0;
        int service = 0;
        int method = -1;
        List<Header> headers = new ArrayList<>();
        String encoding = "";
        String type = "";
        byte[] payload = new byte[0];
        String logNew = "";
        while (r.more()) {
            long tag = r.varint("a field tag");
            int field = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            switch (field) {
                case 1 -> seq = r.expect(wire, 0, "SeqID").varint("SeqID");
                case 2 -> log = r.expect(wire, 0, "LogID").varint("LogID");
                case 3 -> service = (int) r.expect(wire, 0, "service").varint("service");
                case 4 -> method = (int) r.expect(wire, 0, "method").varint("method");
                case 5 -> {
                    if (headers.size() >= MAX_HEADERS) {
                        throw new Malformed("more than " + MAX_HEADERS + " headers");
                    }
                    headers.add(header(r.expect(wire, 2, "a header").bytes("a header")));
                }
                case 6 -> encoding = utf8(r.expect(wire, 2, "payload_encoding").bytes("payload_encoding"));
                case 7 -> type = utf8(r.expect(wire, 2, "payload_type").bytes("payload_type"));
                case 8 -> payload = r.expect(wire, 2, "payload").bytes("payload");
                case 9 -> logNew = utf8(r.expect(wire, 2, "LogIDNew").bytes("LogIDNew"));
                default -> r.skip(wire, field);
            }
        }
        if (method != CONTROL && method != DATA) {
            throw new Malformed(method == -1 ? "no method field" : "method " + method + " is neither control (0) nor data (1)");
        }
        return new FeishuFrame(seq, log, service, method, headers, encoding, type, payload, logNew);
    }

    private static Header header(byte[] bytes) throws Malformed {
        Reader r = new Reader(bytes, 0, bytes.length);
        String key = "";
        String value = "";
        while (r.more()) {
            long tag = r.varint("a header field tag");
            int field = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            switch (field) {
                case 1 -> key = utf8(r.expect(wire, 2, "a header key").bytes("a header key"));
                case 2 -> value = utf8(r.expect(wire, 2, "a header value").bytes("a header value"));
                default -> r.skip(wire, field);
            }
        }
        return new Header(key, value);
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static void varintField(ByteArrayOutputStream out, int field, long value) {
        varint(out, (long) field << 3);
        varint(out, value);
    }

    private static void bytesField(ByteArrayOutputStream out, int field, byte[] value) {
        varint(out, ((long) field << 3) | 2);
        varint(out, value.length);
        out.writeBytes(value);
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    /** Reads protobuf's wire format from {@code bytes[pos, end)}. */
    private static final class Reader {
        private final byte[] bytes;
        private final int end;
        private int pos;

        Reader(byte[] bytes, int pos, int end) {
            this.bytes = bytes;
            this.pos = pos;
            this.end = end;
        }

        boolean more() {
            return pos < end;
        }

        Reader expect(int wire, int wanted, String what) throws Malformed {
            if (wire != wanted) {
                throw new Malformed(what + " has wire type " + wire + ", expected " + wanted);
            }
            return this;
        }

        long varint(String what) throws Malformed {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (pos >= end) {
                    throw new Malformed(what + " is cut off at byte " + pos);
                }
                byte b = bytes[pos++];
                v |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return v;
                }
            }
            throw new Malformed(what + " is a varint longer than 10 bytes");
        }

        byte[] bytes(String what) throws Malformed {
            long n = varint("the length of " + what);
            if (n < 0 || n > end - pos) {
                throw new Malformed(what + " declares " + n + " bytes but " + (end - pos) + " remain");
            }
            byte[] b = java.util.Arrays.copyOfRange(bytes, pos, pos + (int) n);
            pos += (int) n;
            return b;
        }

        void skip(int wire, int field) throws Malformed {
            switch (wire) {
                case 0 -> varint("field " + field);
                case 1 -> advance(8, field);
                case 2 -> bytes("field " + field);
                case 5 -> advance(4, field);
                default -> throw new Malformed("field " + field + " has wire type " + wire + ", which protocol buffers do not use here");
            }
        }

        private void advance(int n, int field) throws Malformed {
            if (end - pos < n) {
                throw new Malformed("field " + field + " is cut off at byte " + pos);
            }
            pos += n;
        }
    }
}

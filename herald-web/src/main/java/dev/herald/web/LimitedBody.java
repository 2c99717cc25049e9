package dev.herald.web;

import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A request body read up to a limit, for the routes that answer 413 above it (the API, webhooks).
 *
 * <p>A body over the limit is refused when its declared length says so, or once a chunked one passes the limit, so an
 * endless body is never kept beyond it. What is still arriving of a refused body is then read and dropped, up to
 * {@link #drainLimit} bytes in all, before the caller answers: most clients send the whole body without waiting for
 * {@code 100 Continue}, and closing on a client that is still sending resets the connection, so the client saw
 * "connection reset" or no answer at all instead of the 413 (found as a rare failure of a test posting 1.1 MB).
 */
public final class LimitedBody {
    private LimitedBody() {
    }

    /** The body, or null when it is over {@code max} bytes (declared or sent). */
    public static byte[] read(Context ctx, long max) throws IOException {
        long declared = ctx.req().getContentLengthLong();
        if (declared > max) {
            if (declared <= drainLimit(max)) {
                drain(ctx.req().getInputStream(), 0, max);
            }
            return null;
        }
        InputStream in = ctx.req().getInputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Math.max(declared, 1024), 65_536));
        byte[] buffer = new byte[8192];
        long total = 0;
        int n;
        while ((n = in.read(buffer)) > 0) {
            total += n;
            if (total > max) {
                drain(in, total, max);
                return null;
            }
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    /** The most of a refused body that is read (and dropped) so that its 413 reaches the client: 8 MiB, or 4 x the limit. */
    private static long drainLimit(long max) {
        return Math.max(8L << 20, 4 * max);
    }

    private static void drain(InputStream in, long alreadyRead, long max) {
        try {
            byte[] buffer = new byte[16_384];
            long total = alreadyRead;
            int n;
            while (total <= drainLimit(max) && (n = in.read(buffer)) > 0) {
                total += n;
            }
        } catch (IOException | RuntimeException e) {
            // the client went away: the answer goes out as far as it can
        }
    }
}

package dev.herald.platforms.common;

import dev.herald.core.platform.MediaFetcher;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Downloads an attachment from its platform's own file hosts, size-capped: the one way an adapter's
 * {@link MediaFetcher} reads bytes. A URL whose host is not one of {@code hosts} is refused before any connection
 * (an attachment URL comes from the platform's message, but Herald only fetches from where the platform serves
 * files), redirects are followed only to those hosts (at most 3; credentials are sent to the first host only), and
 * a body longer than the limit is cut off and refused. Messages carry the kind of failure and the numbers, never a
 * URL (they may hold a token or a signature) or a header.
 */
public final class FileDownload {
    private static final int MAX_REDIRECTS = 3;

    private final HttpClient client;
    private final Set<String> hosts;
    private final String subject;

    /**
     * @param subject the platform, for messages ({@code telegram})
     * @param hosts   the hosts files may come from, lower case
     */
    public FileDownload(String subject, Set<String> hosts, Duration connectTimeout) {
        this.subject = subject;
        this.hosts = Set.copyOf(hosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList());
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** The host of {@code uri}, lower case, or "" when it has none. */
    public static String host(URI uri) {
        return uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
    }

    /** GETs {@code url} with {@code headers} (sent to its own host only) and returns at most {@code maxBytes}. */
    public MediaFetcher.Fetched get(String url, Map<String, String> headers, long maxBytes, Duration timeout) throws IOException {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IOException(subject + " - the attachment's address is not a URL");
        }
        String firstHost = host(uri);
        for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!hosts.contains(host(uri)) || !scheme.equals("https") && !scheme.equals("http")) {
                throw new IOException(subject + " - attachment host " + host(uri) + " is not one of the platform's file hosts " + hosts
                        + "; not fetched");
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).GET();
            if (host(uri).equals(firstHost)) {
                headers.forEach(b::header);
            }
            HttpResponse<InputStream> r;
            try {
                r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            } catch (HttpTimeoutException e) {
                throw new IOException(subject + " - the file did not arrive within " + timeout.toMillis() + " ms");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(subject + " - interrupted while fetching a file");
            } catch (IOException | RuntimeException e) {
                throw new IOException(subject + " - fetching a file failed (" + e.getClass().getSimpleName() + ")");
            }
            int status = r.statusCode();
            if (status >= 300 && status < 400 && r.headers().firstValue("location").isPresent()) {
                r.body().close();
                uri = uri.resolve(r.headers().firstValue("location").get());
                continue;
            }
            try (InputStream in = r.body()) {
                if (status != 200) {
                    throw new IOException(subject + " - the file server answered HTTP " + status);
                }
                long declared = r.headers().firstValueAsLong("content-length").orElse(-1);
                if (declared > maxBytes) {
                    throw new IOException(subject + " - the file is " + declared + " bytes, over the " + maxBytes + "-byte limit");
                }
                byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
                if (bytes.length > maxBytes) {
                    throw new IOException(subject + " - the file is over the " + maxBytes + "-byte limit");
                }
                return new MediaFetcher.Fetched(bytes, r.headers().firstValue("content-type").orElse(null));
            }
        }
        throw new IOException(subject + " - more than " + MAX_REDIRECTS + " redirects while fetching a file");
    }

    /** Hosts from URLs (for an {@code api_base} a test points at a local fake). */
    public static List<String> hostsOf(URI... uris) {
        return java.util.Arrays.stream(uris).map(FileDownload::host).filter(h -> !h.isEmpty()).toList();
    }
}

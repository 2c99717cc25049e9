package dev.herald.platforms.xmpp;

import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files over XMPP: XEP-0363 HTTP File Upload out (discover the service, ask for a slot, PUT the bytes, send the GET
 * URL with XEP-0066 out-of-band data) and in ({@code jabber:x:oob} URLs as {@link MessageEvent.MediaRef}s, fetched by
 * {@link #fetch} from the XMPP server's own hosts only).
 *
 * <p>Hosts Herald talks HTTP to: the put URL of a slot the server gave (https, or http to a loopback host), and for
 * fetching the XMPP server's domain, the host Herald connects to, the upload service's JID and every host a slot of
 * the service named. Never a host a sender merely named: a hostile sender could point at a private address.
 * Redirects are never followed.
 */
final class XmppFiles implements MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(XmppFiles.class);
    static final String UPLOAD_NS = "urn:xmpp:http:upload:0";
    static final String OOB_NS = "jabber:x:oob";
    static final String DISCO_ITEMS_NS = "http://jabber.org/protocol/disco#items";
    static final String DISCO_INFO_NS = "http://jabber.org/protocol/disco#info";
    /** The limit used when the service does not say its {@code max-file-size}. */
    static final long DEFAULT_MAX_BYTES = 5L * 1024 * 1024;
    /** At most this many items of the server's disco#items are asked what they are. */
    private static final int MAX_ITEMS = 20;

    /** An upload service: its JID and the largest file it takes. */
    record Service(String jid, long maxBytes) {
    }

    /** A slot: where to PUT (with these headers) and the URL to GET it from afterwards. */
    record Slot(URI put, Map<String, String> headers, URI get) {
    }

    private final Set<String> hosts = ConcurrentHashMap.newKeySet();
    private final HttpClient http;
    private final Duration timeout;

    XmppFiles(Jid account, String connectHost, Duration timeout) {
        this.timeout = timeout;
        hosts.add(account.domain().toLowerCase(Locale.ROOT));
        hosts.add(connectHost.toLowerCase(Locale.ROOT));
        this.http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(timeout).build();
    }

    /** Finds the upload service among the server's items (and the server itself); empty when there is none. */
    Optional<Service> discover(XmppConnection.Requester iq, String domain) throws IOException, InterruptedException {
        List<String> candidates = new ArrayList<>();
        candidates.add(domain);
        Element items = iq.request("<iq type='get' to='" + Xml.attr(domain) + "'><query xmlns='" + DISCO_ITEMS_NS + "'/></iq>");
        if (items != null && "result".equals(items.attr("type"))) {
            items.child("query", DISCO_ITEMS_NS).ifPresent(q -> q.children("item", DISCO_ITEMS_NS).stream().map(i -> i.attr("jid"))
                    .filter(j -> j != null && !j.isBlank() && j.length() < 512).limit(MAX_ITEMS).forEach(candidates::add));
        }
        for (String jid : candidates) {
            Element info = iq.request("<iq type='get' to='" + Xml.attr(jid) + "'><query xmlns='" + DISCO_INFO_NS + "'/></iq>");
            if (info == null || !"result".equals(info.attr("type"))) {
                continue;
            }
            Optional<Element> q = info.child("query", DISCO_INFO_NS);
            boolean upload = q.map(e -> e.children("feature", DISCO_INFO_NS).stream().anyMatch(f -> UPLOAD_NS.equals(f.attr("var"))))
                    .orElse(false);
            if (!upload) {
                continue;
            }
            long max = q.map(XmppFiles::maxFileSize).orElse(-1L);
            hosts.add(Jid.parse(jid) == null ? jid.toLowerCase(Locale.ROOT) : Jid.parse(jid).domain().toLowerCase(Locale.ROOT));
            return Optional.of(new Service(jid, max > 0 ? max : DEFAULT_MAX_BYTES));
        }
        return Optional.empty();
    }

    /** The {@code max-file-size} field of the upload form in a disco#info answer, or -1. */
    private static long maxFileSize(Element query) {
        for (Element x : query.children("x", "jabber:x:data")) {
            boolean upload = x.children("field", "jabber:x:data").stream()
                    .anyMatch(f -> "FORM_TYPE".equals(f.attr("var")) && f.child("value", "jabber:x:data").map(Element::text)
                            .map(String::strip).filter(UPLOAD_NS::equals).isPresent());
            if (!upload) {
                continue;
            }
            for (Element f : x.children("field", "jabber:x:data")) {
                if ("max-file-size".equals(f.attr("var"))) {
                    try {
                        return Long.parseLong(f.child("value", "jabber:x:data").map(Element::text).orElse("").strip());
                    } catch (NumberFormatException e) {
                        return -1;
                    }
                }
            }
        }
        return -1;
    }

    /** Asks {@code service} for a slot; an {@link IOException} with the server's reason when it refuses. */
    Slot slot(XmppConnection.Requester iq, Service service, String name, long size, String type) throws IOException, InterruptedException {
        Element answer = iq.request("<iq type='get' to='" + Xml.attr(service.jid()) + "'><request xmlns='" + UPLOAD_NS + "' filename='"
                + Xml.attr(name) + "' size='" + size + "' content-type='" + Xml.attr(type) + "'/></iq>");
        if (answer == null) {
            throw new IOException("the upload service " + service.jid() + " did not answer the slot request");
        }
        if (!"result".equals(answer.attr("type"))) {
            String condition = answer.child("error", XmppConnection.CLIENT_NS).flatMap(e -> e.children().stream().findFirst())
                    .map(Element::name).orElse("unknown");
            throw new Refused("the upload service " + service.jid() + " refused a slot for " + size + " bytes (" + condition + ")");
        }
        Element slot = answer.child("slot", UPLOAD_NS).orElseThrow(() -> new IOException("the slot answer has no <slot>"));
        Element put = slot.child("put", UPLOAD_NS).orElseThrow(() -> new IOException("the slot has no put URL"));
        Element get = slot.child("get", UPLOAD_NS).orElseThrow(() -> new IOException("the slot has no get URL"));
        URI putUrl = url(put.attr("url"), "put");
        URI getUrl = url(get.attr("url"), "get");
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        for (Element h : put.children("header", UPLOAD_NS)) {
            String n = h.attr("name");
            String v = h.text().replaceAll("[\\r\\n]", "");
            // XEP-0363: only these headers may be passed on
            if (n != null && Set.of("authorization", "cookie", "expires").contains(n.toLowerCase(Locale.ROOT))) {
                headers.put(n, v);
            }
        }
        hosts.add(getUrl.getHost().toLowerCase(Locale.ROOT));
        return new Slot(putUrl, headers, getUrl);
    }

    /** PUTs {@code bytes} to the slot's put URL. */
    void put(Slot slot, byte[] bytes, String type) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(slot.put()).timeout(timeout.multipliedBy(4)).header("Content-Type", type)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes));
        slot.headers().forEach(b::header);
        HttpResponse<Void> r = http.send(b.build(), HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 200 && r.statusCode() != 201) {
            throw new IOException("the upload to " + slot.put().getHost() + " answered HTTP " + r.statusCode());
        }
    }

    /** A URL of a slot: https, or http to a loopback host. */
    private static URI url(String s, String which) throws IOException {
        URI u;
        try {
            u = s == null ? null : new URI(s);
        } catch (java.net.URISyntaxException e) {
            u = null;
        }
        if (u == null || u.getHost() == null || u.getRawUserInfo() != null || !allowedScheme(u)) {
            throw new IOException("the slot's " + which + " URL is not https (or http to a loopback host)");
        }
        return u;
    }

    private static boolean allowedScheme(URI u) {
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        return scheme.equals("https") || scheme.equals("http") && XmppSettings.isLoopback(u.getHost());
    }

    // ---- inbound ----------------------------------------------------------------------------------

    /** The media a message carries as {@code jabber:x:oob} URLs (at most 10). */
    static List<MessageEvent.MediaRef> oob(Element message) {
        List<MessageEvent.MediaRef> out = new ArrayList<>();
        for (Element x : message.children("x", OOB_NS)) {
            x.child("url", OOB_NS).map(Element::text).map(String::strip).flatMap(XmppFiles::ref).ifPresent(out::add);
            if (out.size() >= 10) {
                break;
            }
        }
        return out;
    }

    /** A reference for an http(s) URL, its kind and type guessed from the name; empty for anything else. */
    static Optional<MessageEvent.MediaRef> ref(String url) {
        if (url.length() > 2048 || !(url.startsWith("https://") || url.startsWith("http://"))) {
            return Optional.empty();
        }
        URI u;
        try {
            u = new URI(url);
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
        if (u.getHost() == null) {
            return Optional.empty();
        }
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        String name = URLDecoder.decode(path.substring(path.lastIndexOf('/') + 1), StandardCharsets.UTF_8);
        String ext = name.contains(".") ? name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT) : "";
        String type = switch (ext) {
            case "png" -> "image/png";
            case "jpg", "jpeg" -> "image/jpeg";
            case "gif" -> "image/gif";
            case "webp" -> "image/webp";
            case "ogg", "oga", "opus" -> "audio/ogg";
            case "m4a" -> "audio/mp4";
            case "mp3" -> "audio/mpeg";
            case "pdf" -> "application/pdf";
            case "txt" -> "text/plain";
            default -> null;
        };
        String kind = type == null ? "file" : type.startsWith("image/") ? "image" : type.startsWith("audio/") ? "audio" : "file";
        return Optional.of(new MessageEvent.MediaRef(kind, url, type, name.isEmpty() ? null : name, -1));
    }

    /** True when {@code url} is an https (or loopback http) URL on one of the server's own hosts. */
    boolean ownHost(String url) {
        try {
            URI u = new URI(url);
            return u.getHost() != null && u.getRawUserInfo() == null && allowedScheme(u) && hosts.contains(u.getHost().toLowerCase(Locale.ROOT));
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        URI u;
        try {
            u = new URI(ref.ref());
        } catch (java.net.URISyntaxException e) {
            throw new IOException("xmpp - the attachment reference is not a URL");
        }
        if (!ownHost(ref.ref())) {
            String host = u.getHost() == null ? "(none)" : u.getHost();
            log.warn("xmpp - refused to fetch an attachment from host {}: only the XMPP server's own hosts {} are fetched from (https, or "
                    + "http on loopback)", host.length() > 64 ? "(long)" : host, hosts);
            throw new IOException("xmpp - refused to fetch an attachment from host " + (host.length() > 64 ? "(long)" : host)
                    + ": not the XMPP server's own upload host");
        }
        HttpRequest request = HttpRequest.newBuilder(u).timeout(timeout.multipliedBy(4)).GET().build();
        try {
            HttpResponse<InputStream> r = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                if (r.statusCode() != 200) {
                    throw new IOException("xmpp - fetching an attachment from " + u.getHost() + " answered HTTP " + r.statusCode());
                }
                long declared = r.headers().firstValueAsLong("Content-Length").orElse(-1);
                if (declared > maxBytes) {
                    throw new IOException("xmpp - the attachment is " + declared + " bytes, over the limit of " + maxBytes);
                }
                byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
                if (bytes.length > maxBytes) {
                    throw new IOException("xmpp - the attachment is over the limit of " + maxBytes + " bytes");
                }
                String type = r.headers().firstValue("Content-Type").orElse(ref.mimeType());
                return new Fetched(bytes, type);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("xmpp - interrupted while fetching an attachment");
        }
    }

    /** A refusal by the server that trying again will not change. */
    static final class Refused extends IOException {
        Refused(String message) {
            super(message);
        }
    }
}

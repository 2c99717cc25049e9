package dev.herald.platforms.xmpp;

import java.io.IOException;
import java.io.Reader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads one XMPP stream (RFC 6120, section 4): the {@code <stream:stream>} header, then one top-level element
 * (a stanza, a feature list, a SASL or stream-management element) at a time, as an {@link Element} tree.
 *
 * <p>A streaming parser (the JDK's StAX, chosen explicitly so that no other StAX on the class path changes the
 * rules) with DTDs and external entities off. XMPP forbids DTDs, processing instructions and entity references
 * other than the five predefined ones (RFC 6120, 11.1); any of them ends the stream with a
 * {@link Restricted} error (the connection is then closed and made again), so a billion-laughs or external-entity
 * payload is never expanded. A stanza larger than {@code maxChars} (text and attribute characters) or deeper than
 * {@link #MAX_DEPTH} is read to its end without being kept and reported as {@link Oversized}; the stream goes on.
 */
final class StanzaReader {
    /** Nesting deeper than this inside one stanza is not kept (real stanzas are a few levels deep). */
    static final int MAX_DEPTH = 32;
    static final String STREAM_NS = "http://etherx.jabber.org/streams";

    private static final XMLInputFactory FACTORY = factory();

    /** What {@link #next} read. */
    sealed interface Item {
    }

    /** A whole top-level element. */
    record Stanza(Element element) implements Item {
    }

    /** A top-level element that was too large or too deep, skipped. */
    record Oversized(String name, long chars) implements Item {
    }

    /** {@code </stream:stream>}: the server closed the stream. */
    record End() implements Item {
    }

    /** The server sent XML that XMPP forbids or that is not well formed; the stream cannot go on. */
    static final class Restricted extends IOException {
        Restricted(String message) {
            super(message);
        }
    }

    private final XMLStreamReader xml;
    private final long maxChars;

    /**
     * A reader of the stream arriving on {@code in}, keeping stanzas of at most {@code maxChars} characters.
     *
     * @throws IOException a {@link Restricted} when the stream does not even begin as XML
     */
    StanzaReader(Reader in, long maxChars) throws IOException {
        this.maxChars = maxChars;
        try {
            this.xml = FACTORY.createXMLStreamReader(in);
        } catch (XMLStreamException | RuntimeException e) {
            throw restricted(e);
        }
    }

    private static XMLInputFactory factory() {
        XMLInputFactory f = XMLInputFactory.newDefaultFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        f.setProperty(XMLInputFactory.IS_COALESCING, false);
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        f.setXMLResolver((publicId, systemId, base, ns) -> {
            throw new XMLStreamException("external entity refused");
        });
        return f;
    }

    /** Reads up to and including the {@code <stream:stream>} start tag; returns it (attributes only). */
    Element openStream() throws IOException {
        try {
            while (true) {
                int event = xml.next();
                checkAllowed(event);
                if (event == XMLStreamConstants.START_ELEMENT) {
                    if (!"stream".equals(xml.getLocalName()) || !STREAM_NS.equals(xml.getNamespaceURI())) {
                        throw new Restricted("the stream began with <" + xml.getLocalName() + ">, not <stream:stream>");
                    }
                    return new Element("stream", STREAM_NS, attributes(), List.of(), "");
                }
            }
        } catch (XMLStreamException | RuntimeException e) {
            throw restricted(e);
        }
    }

    /** The next top-level element, or {@link End}. Blocks until it has arrived whole. */
    Item next() throws IOException {
        try {
            while (true) {
                int event = xml.next();
                checkAllowed(event);
                switch (event) {
                    case XMLStreamConstants.START_ELEMENT -> {
                        return element();
                    }
                    case XMLStreamConstants.END_ELEMENT, XMLStreamConstants.END_DOCUMENT -> {
                        return new End();
                    }
                    default -> {
                        // whitespace keepalives between stanzas, comments
                    }
                }
            }
        } catch (XMLStreamException | RuntimeException e) {
            throw restricted(e);
        }
    }

    /** Builds the element whose start tag was just read, reading to its end tag. */
    private Item element() throws XMLStreamException, Restricted {
        Deque<Builder> open = new ArrayDeque<>();
        open.push(new Builder(xml.getLocalName(), xml.getNamespaceURI(), attributes()));
        String top = xml.getLocalName();
        long chars = open.peek().size();
        boolean skipping = false;
        int depth = 1;
        while (depth > 0) {
            int event = xml.next();
            checkAllowed(event);
            switch (event) {
                case XMLStreamConstants.START_ELEMENT -> {
                    depth++;
                    if (!skipping) {
                        Builder b = new Builder(xml.getLocalName(), xml.getNamespaceURI(), attributes());
                        chars += b.size();
                        open.push(b);
                    }
                }
                case XMLStreamConstants.END_ELEMENT -> {
                    depth--;
                    if (!skipping) {
                        Element done = open.pop().build();
                        if (open.isEmpty()) {
                            return new Stanza(done);
                        }
                        open.peek().children.add(done);
                    }
                }
                case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
                    chars += xml.getTextLength();
                    if (!skipping) {
                        open.peek().text.append(xml.getTextCharacters(), xml.getTextStart(), xml.getTextLength());
                    }
                }
                case XMLStreamConstants.END_DOCUMENT -> throw new Restricted("the stream ended inside <" + top + ">");
                default -> {
                    // comments inside a stanza carry nothing
                }
            }
            if (!skipping && (chars > maxChars || depth > MAX_DEPTH)) {
                skipping = true;
                open.clear();
            }
        }
        return new Oversized(top, chars);
    }

    private void checkAllowed(int event) throws Restricted {
        switch (event) {
            case XMLStreamConstants.DTD -> throw new Restricted("a DOCTYPE declaration (XMPP forbids DTDs; entities are never expanded)");
            case XMLStreamConstants.ENTITY_REFERENCE -> throw new Restricted("an entity reference &" + xml.getLocalName() + "; (XMPP allows only the predefined five)");
            case XMLStreamConstants.PROCESSING_INSTRUCTION -> throw new Restricted("a processing instruction (XMPP forbids them)");
            default -> {
            }
        }
    }

    private Map<String, String> attributes() {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < xml.getAttributeCount(); i++) {
            out.put(xml.getAttributeLocalName(i), xml.getAttributeValue(i));
        }
        return out;
    }

    /**
     * What a parser failure means: the connection failing under the parser stays an {@link IOException}; broken UTF-8
     * and XML that is not well formed are the server's, a {@link Restricted}.
     */
    private static IOException restricted(Exception e) {
        if (e instanceof Restricted r) {
            return r;
        }
        Throwable nested = e instanceof XMLStreamException x ? x.getNestedException() : null;
        for (Throwable t = nested == null ? e.getCause() : nested; t != null; t = t.getCause()) {
            if (t instanceof java.nio.charset.CharacterCodingException) {
                return new Restricted("bytes that are not UTF-8");
            }
            if (t instanceof IOException io) {
                return io;
            }
        }
        String msg = String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
        return new Restricted("XML that is not well formed (" + (msg.length() > 200 ? msg.substring(0, 200) + "…" : msg) + ")");
    }

    private static final class Builder {
        final String name;
        final String ns;
        final Map<String, String> attrs;
        final List<Element> children = new ArrayList<>();
        final StringBuilder text = new StringBuilder();

        Builder(String name, String ns, Map<String, String> attrs) {
            this.name = name;
            this.ns = ns;
            this.attrs = attrs;
        }

        long size() {
            long n = name.length();
            for (Map.Entry<String, String> e : attrs.entrySet()) {
                n += e.getKey().length() + e.getValue().length();
            }
            return n;
        }

        Element build() {
            return new Element(name, ns, attrs, children, text.toString());
        }
    }
}

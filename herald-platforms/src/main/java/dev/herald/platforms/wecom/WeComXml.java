package dev.herald.platforms.wecom;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * Reads WeCom's flat XML ({@code <xml><Name><![CDATA[value]]></Name>...</xml>}) into a map of the root's child elements
 * and their text. The parser takes no DOCTYPE at all (so no entity, internal or external, is ever declared or
 * expanded, and no DTD is fetched), resolves nothing, and refuses anything else with an {@link IOException}: a body with
 * a DOCTYPE is refused whole, never half-read.
 */
final class WeComXml {
    private static final DocumentBuilderFactory FACTORY = factory();

    private WeComXml() {
    }

    private static DocumentBuilderFactory factory() {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        try {
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the XML parser cannot be made safe (" + e.getMessage() + ")", e);
        }
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        f.setXIncludeAware(false);
        f.setExpandEntityReferences(false);
        f.setNamespaceAware(false);
        return f;
    }

    /** The root's child elements by name (the first of each), their text stripped of surrounding white space. */
    static Map<String, String> fields(byte[] xml) throws IOException {
        Document doc;
        try {
            DocumentBuilder b = FACTORY.newDocumentBuilder();
            b.setEntityResolver((publicId, systemId) -> {
                throw new SAXException("external entities are not read");
            });
            b.setErrorHandler(new org.xml.sax.helpers.DefaultHandler()); // fatal errors throw, nothing is printed
            doc = b.parse(new ByteArrayInputStream(xml));
        } catch (SAXException e) {
            throw new IOException("not well-formed XML or a DOCTYPE/entity (refused)");
        } catch (ParserConfigurationException | RuntimeException e) {
            throw new IOException("not readable as XML");
        }
        Element root = doc.getDocumentElement();
        Map<String, String> out = new LinkedHashMap<>();
        if (root == null) {
            return out;
        }
        for (Node n = root.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n.getNodeType() == Node.ELEMENT_NODE && !out.containsKey(n.getNodeName())) {
                out.put(n.getNodeName(), n.getTextContent() == null ? "" : n.getTextContent().strip());
            }
        }
        return out;
    }
}

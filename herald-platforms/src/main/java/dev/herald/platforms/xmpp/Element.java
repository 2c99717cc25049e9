package dev.herald.platforms.xmpp;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One XML element read from the stream: its local name, namespace, attributes (by local name; XMPP stanzas carry
 * no namespaced attributes Herald reads, except {@code xml:lang}, which it ignores), child elements and text. Immutable.
 */
record Element(String name, String namespace, Map<String, String> attributes, List<Element> children, String text) {
    Element {
        Objects.requireNonNull(name, "name");
        namespace = namespace == null ? "" : namespace;
        attributes = Map.copyOf(attributes);
        children = List.copyOf(children);
        text = text == null ? "" : text;
    }

    /** The attribute {@code key}, or null. */
    String attr(String key) {
        return attributes.get(key);
    }

    /** The first child named {@code childName} in namespace {@code ns}. */
    Optional<Element> child(String childName, String ns) {
        for (Element c : children) {
            if (c.name.equals(childName) && c.namespace.equals(ns)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** The first child named {@code childName} in any namespace. */
    Optional<Element> child(String childName) {
        return children.stream().filter(c -> c.name.equals(childName)).findFirst();
    }

    /** Children named {@code childName} in namespace {@code ns}. */
    List<Element> children(String childName, String ns) {
        return children.stream().filter(c -> c.name.equals(childName) && c.namespace.equals(ns)).toList();
    }

    boolean is(String elementName, String ns) {
        return name.equals(elementName) && namespace.equals(ns);
    }
}

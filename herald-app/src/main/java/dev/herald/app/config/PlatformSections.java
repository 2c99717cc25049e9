package dev.herald.app.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the component of {@link PlatformsConfig} that holds the plug-ins' sections: in the file, and for everything
 * that walks the configuration ({@link Sections}), each plug-in's section is a key of {@code platforms:} of its own
 * ({@code platforms.telegram}), at this component's place.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
@interface PlatformSections {
}

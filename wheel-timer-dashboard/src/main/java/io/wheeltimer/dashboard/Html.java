package io.wheeltimer.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Writing HTML in Java: every value a page shows passes through {@link #text}, which escapes what
 * HTML gives a meaning to, in text and in quoted attributes alike. No template engine: a library
 * that brought one would auto-configure it in the application and change how the application's own
 * views resolve.
 */
final class Html {

    /** What masked data and last errors show. */
    static final String MASK = "******";

    private static final DateTimeFormatter INSTANT =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Html() {}

    /** {@code value} escaped for HTML text and double- or single-quoted attribute values; "" for null. */
    static String text(Object value) {
        if (value == null) {
            return "";
        }
        String s = value.toString();
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** {@code value} encoded as a URL query parameter value. */
    static String query(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** An instant as UTC, to the millisecond; "-" for null. */
    static String instant(Instant instant) {
        return instant == null ? "-" : INSTANT.format(instant);
    }

    /** A duration in milliseconds, with a unit; "-" for null. */
    static String millis(Duration duration) {
        return duration == null ? "-" : duration.toMillis() + " ms";
    }
}

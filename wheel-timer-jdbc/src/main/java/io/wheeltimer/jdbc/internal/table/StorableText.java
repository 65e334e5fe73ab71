package io.wheeltimer.jdbc.internal.table;

/**
 * Text as the table's text columns store it, and as errors show it: the widths of those columns, what
 * every database stores in them, the cuts, and the size of text as a driver sends it.
 */
public final class StorableText {

    /** Width of the {@code last_error} column. */
    public static final int MAX_ERROR_LENGTH = 4000;

    /** Most text a context may store with a timeout: the width of the {@code trace_context} column. */
    public static final int MAX_CONTEXT_LENGTH = 512;

    /**
     * The index of the first character of {@code text} that not every database stores in a text
     * column: U+0000 (PostgreSQL refuses it) or half of a surrogate pair (no UTF-8 for it: a driver
     * writes something else, or refuses it); -1 when there is none.
     */
    public static int unstorableAt(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\u0000') {
                return i;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@code text} as a text column can store it on every database: without U+0000 (PostgreSQL
     * refuses it), with each unpaired surrogate as U+FFFD, and cut to {@code maxLength} characters
     * without cutting a pair in two.
     */
    public static String storable(String text, int maxLength) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), maxLength));
        for (int i = 0; i < text.length() && out.length() < maxLength; i++) {
            char c = text.charAt(i);
            if (c == '\u0000') {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                if (out.length() + 2 > maxLength) {
                    break;
                }
                out.append(c).append(text.charAt(++i));
            } else {
                out.append(Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return out.toString();
    }

    /** {@code value} cut to at most {@code length} code points, with "..." when cut; never inside a surrogate pair. */
    public static String truncate(String value, int length) {
        if (value.codePointCount(0, value.length()) <= length) {
            return value;
        }
        return value.substring(0, value.offsetByCodePoints(0, length - 3)) + "...";
    }

    private StorableText() {}

    /** The number of bytes {@code text} takes in UTF-8, without encoding it. */
    public static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3; // an unpaired surrogate is stored as U+FFFD, three bytes
            }
        }
        return bytes;
    }
}

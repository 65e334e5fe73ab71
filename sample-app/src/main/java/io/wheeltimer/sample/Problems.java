package io.wheeltimer.sample;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Writes an RFC 9457 problem detail where Spring MVC's own handling does not reach (filters, Tomcat). */
final class Problems {

    static final String MEDIA_TYPE = "application/problem+json";

    private Problems() {}

    static String json(int status, String title, String detail, String instance) {
        StringBuilder json = new StringBuilder("{\"type\":\"about:blank\",\"title\":");
        quote(json, title).append(",\"status\":").append(status);
        if (detail != null) {
            quote(json.append(",\"detail\":"), detail);
        }
        if (instance != null) {
            quote(json.append(",\"instance\":"), instance);
        }
        return json.append('}').toString();
    }

    static void write(HttpServletResponse response, int status, String title, String detail, String instance)
            throws IOException {
        response.resetBuffer();
        response.setStatus(status);
        response.setContentType(MEDIA_TYPE);
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(json(status, title, detail, instance));
        response.flushBuffer();
    }

    private static StringBuilder quote(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"');
    }
}

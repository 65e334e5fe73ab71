package io.wheeltimer.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import org.springframework.util.ClassUtils;

/**
 * Who may see and change what. Reads: without Spring Security only loopback requests (the address the
 * application resolves, which {@code server.forward-headers-strategy} makes the forwarded client's),
 * unless remote ones are allowed; with Spring Security its rules decide. Writes: only when the
 * dashboard is not read-only, and only with this dashboard's token, which its own forms carry and a
 * page of another site cannot read (with Spring Security, its CSRF token is carried too, and its
 * filter checks it first). Data and last errors: per {@link DashboardProperties.ShowData}.
 */
final class DashboardAccess {

    /** Whether Spring Security's web support is on {@code classLoader}'s class path. */
    static boolean isSecurityPresent(ClassLoader classLoader) {
        return ClassUtils.isPresent("org.springframework.security.web.SecurityFilterChain", classLoader);
    }

    /** The form field of this dashboard's token. */
    static final String TOKEN_FIELD = "wt-token";

    private static final String CSRF_TOKEN = "org.springframework.security.web.csrf.CsrfToken";

    private final boolean securityPresent;
    private final boolean allowRemote;
    private final boolean readOnly;
    private final DashboardProperties.ShowData showData;
    private final String token;

    /**
     * @param securityPresent whether Spring Security is on the application's class path (then its rules
     *     decide who may look, and the loopback rule is off)
     */
    DashboardAccess(DashboardProperties properties, boolean securityPresent) {
        this.securityPresent = securityPresent;
        this.allowRemote = properties.isAllowRemote();
        this.readOnly = properties.isReadOnly();
        this.showData = properties.getShowData();
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        this.token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /** Whether the loopback rule refuses {@code request}: no Spring Security, remote not allowed, not loopback. */
    boolean refusesRemote(HttpServletRequest request) {
        return !securityPresent && !allowRemote && !isLoopback(request.getRemoteAddr());
    }

    /** Whether writes are allowed at all. */
    boolean writesAllowed() {
        return !readOnly;
    }

    /** Whether {@code presented} is this dashboard's token (compared in constant time). */
    boolean isToken(String presented) {
        return presented != null
                && MessageDigest.isEqual(
                        presented.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether {@code request} may see data and last errors unmasked. */
    boolean showsData(HttpServletRequest request) {
        return switch (showData) {
            case ALWAYS -> true;
            case WHEN_AUTHORIZED -> request.getUserPrincipal() != null;
            case NEVER -> false;
        };
    }

    /** What a page needs to know of {@code request}'s rights. */
    Viewer viewer(HttpServletRequest request, String path) {
        return new Viewer(path, showsData(request), writesAllowed(), writesAllowed() ? tokenFields(request) : "");
    }

    /** The hidden fields every write form carries: this dashboard's token, and Spring Security's if any. */
    private String tokenFields(HttpServletRequest request) {
        StringBuilder fields = new StringBuilder();
        fields.append("<input type=\"hidden\" name=\"")
                .append(TOKEN_FIELD)
                .append("\" value=\"")
                .append(Html.text(token))
                .append("\">");
        Object csrf = request.getAttribute(CSRF_TOKEN);
        if (csrf != null) {
            // Read through the interface by reflection: no compile-time tie to Spring Security.
            try {
                Class<?> type = ClassUtils.forName(CSRF_TOKEN, csrf.getClass().getClassLoader());
                Method name = type.getMethod("getParameterName");
                Method value = type.getMethod("getToken");
                fields.append("<input type=\"hidden\" name=\"")
                        .append(Html.text(name.invoke(csrf)))
                        .append("\" value=\"")
                        .append(Html.text(value.invoke(csrf)))
                        .append("\">");
            } catch (ReflectiveOperationException | LinkageError e) {
                throw new IllegalStateException("Could not read Spring Security's CSRF token " + csrf, e);
            }
        }
        return fields.toString();
    }

    static boolean isLoopback(String address) {
        if (address == null || address.isEmpty()) {
            return false;
        }
        // Only an address literal is looked at: never a name, which would be resolved.
        if (!address.matches("[0-9a-fA-F.:%\\[\\]]+")) {
            return false;
        }
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}

package io.wheeltimer.dashboard;

import io.wheeltimer.HashedWheelTimer;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.springframework.dao.DataAccessException;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The dashboard's routes under its path:
 *
 * <pre>
 *  GET  {path}                      overview (wheels, durable figures, lookup by ?task=&amp;key=)
 *  GET  {path}/api/figures          the overview's figures alone, an HTML fragment (the refresh)
 *  GET  {path}/pending?task=        a task's pending timeouts, soonest first, 50 a page (keyset)
 *  GET  {path}/failed?task=         a task's given-up timeouts, latest first, 50 a page (keyset)
 *  POST {path}/actions/{action}     retry, discard, cancel, run-now (form: task, key, token)
 *  GET  {path}/assets/htmx.min.js   the one script, from the htmx WebJar in this jar's dependencies
 * </pre>
 *
 * Every route first passes the loopback rule ({@link DashboardAccess}).
 */
final class DashboardRoutes {

    private static final MediaType HTML = MediaType.parseMediaType("text/html;charset=UTF-8");
    private static final String CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:";

    private final String path;
    private final Duration refresh;
    private final DashboardAccess access;
    private final Supplier<Map<String, HashedWheelTimer>> wheels;
    private final Supplier<DurableSections> durable;
    private final byte[] htmx;

    DashboardRoutes(
            String path,
            Duration refresh,
            DashboardAccess access,
            Supplier<Map<String, HashedWheelTimer>> wheels,
            Supplier<DurableSections> durable) {
        this.path = path;
        this.refresh = refresh;
        this.access = access;
        this.wheels = wheels;
        this.durable = durable;
        this.htmx = readScript();
    }

    RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
                .GET(path, this::overview)
                .GET(path + "/api/figures", this::figures)
                .GET(path + "/pending", request -> list(request, false))
                .GET(path + "/failed", request -> list(request, true))
                .POST(path + "/actions/{action}", this::act)
                .GET(path + "/assets/htmx.min.js", this::script)
                .filter(loopbackOnly())
                .build();
    }

    private HandlerFilterFunction<ServerResponse, ServerResponse> loopbackOnly() {
        return (request, next) -> access.refusesRemote(request.servletRequest())
                ? text(
                        HttpStatus.FORBIDDEN,
                        "The wheel-timer dashboard answers loopback requests only (this one came from "
                                + request.servletRequest().getRemoteAddr()
                                + "): open it through a port-forward or an SSH tunnel, or set"
                                + " wheel-timer.dashboard.allow-remote=true behind your own access control.")
                : next.handle(request);
    }

    private ServerResponse overview(ServerRequest request) {
        Viewer viewer = viewer(request);
        StringBuilder body = new StringBuilder();
        DurableSections sections = durable.get();
        if (sections != null) {
            sections.lookup(
                    body,
                    viewer,
                    request.param("task").orElse(null),
                    request.param("key").orElse(null));
        }
        figures(body, viewer);
        return html(Page.of(viewer, "dashboard", body.toString()));
    }

    private ServerResponse figures(ServerRequest request) {
        StringBuilder body = new StringBuilder();
        figures(body, viewer(request));
        return html(body.toString());
    }

    /** The part that refreshes: it carries its own trigger, so each swap schedules the next. */
    private void figures(StringBuilder out, Viewer viewer) {
        out.append("<div id=\"figures\" hx-get=\"")
                .append(path)
                .append("/api/figures\" hx-trigger=\"every ")
                .append(refresh.toMillis())
                .append("ms\" hx-swap=\"outerHTML\">");
        WheelSection.write(out, wheels.get());
        DurableSections sections = durable.get();
        if (sections != null) {
            StringBuilder durableFigures = new StringBuilder();
            try {
                sections.figures(durableFigures, viewer);
                out.append(durableFigures);
            } catch (DataAccessException unreachable) {
                // The wheels still show; the next refresh tries the database again.
                out.append("<section><h2>Durable timeouts</h2><p class=\"note\" data-testid=\"durable-error\">The"
                                + " database could not be read: ")
                        .append(Html.text(unreachable.getMostSpecificCause().getMessage()))
                        .append("</p></section>");
            }
        }
        out.append("</div>");
    }

    private ServerResponse list(ServerRequest request, boolean failed) {
        DurableSections sections = durable.get();
        String task = request.param("task").orElse("");
        if (sections == null) {
            return text(HttpStatus.NOT_FOUND, "No durable timeouts are configured in this application.");
        }
        if (task.isBlank()) {
            return text(HttpStatus.BAD_REQUEST, "task must be given (?task=...), was '" + task + "'");
        }
        Viewer viewer = viewer(request);
        StringBuilder body = new StringBuilder();
        Map<String, String> params = new LinkedHashMap<>();
        request.params().forEach((name, values) -> params.put(name, values.isEmpty() ? null : values.get(0)));
        try {
            sections.list(body, viewer, task, failed, params);
        } catch (IllegalArgumentException bad) {
            return text(HttpStatus.BAD_REQUEST, bad.getMessage());
        }
        return html(Page.of(viewer, (failed ? "given up: " : "pending: ") + task, body.toString()));
    }

    private ServerResponse act(ServerRequest request) throws Exception {
        if (!access.writesAllowed()) {
            return text(
                    HttpStatus.FORBIDDEN,
                    "The wheel-timer dashboard is read-only (wheel-timer.dashboard.read-only=true): nothing changed.");
        }
        HttpServletRequest servlet = request.servletRequest();
        if (!access.isToken(servlet.getParameter(DashboardAccess.TOKEN_FIELD))) {
            return text(
                    HttpStatus.FORBIDDEN,
                    "This request lacks the dashboard's form token (" + DashboardAccess.TOKEN_FIELD
                            + "): send it from the dashboard's own page. Nothing changed.");
        }
        DurableSections sections = durable.get();
        if (sections == null) {
            return text(HttpStatus.NOT_FOUND, "No durable timeouts are configured in this application.");
        }
        String action = request.pathVariable("action");
        String task = servlet.getParameter("task");
        String key = servlet.getParameter("key");
        if (task == null || key == null) {
            return text(HttpStatus.BAD_REQUEST, "task and key must be given, were '" + task + "' and '" + key + "'");
        }
        boolean done;
        try {
            done = sections.act(action, task, key);
        } catch (IllegalArgumentException bad) {
            return text(HttpStatus.BAD_REQUEST, bad.getMessage());
        }
        if (!done) {
            return text(
                    HttpStatus.NOT_FOUND,
                    "No timeout of task '" + task + "' for key '" + key + "' that " + action + " applies to.");
        }
        String back = "failed".equals(servlet.getParameter("back")) ? "/failed" : "/pending";
        return ServerResponse.seeOther(URI.create(path + back + "?task=" + Html.query(task)))
                .build();
    }

    private ServerResponse script(ServerRequest request) {
        return ServerResponse.ok()
                .contentType(MediaType.parseMediaType("text/javascript;charset=UTF-8"))
                .cacheControl(CacheControl.maxAge(Duration.ofHours(1)))
                .body(htmx);
    }

    private Viewer viewer(ServerRequest request) {
        return access.viewer(request.servletRequest(), path);
    }

    private static ServerResponse html(String html) {
        return ServerResponse.ok()
                .contentType(HTML)
                .cacheControl(CacheControl.noStore())
                .header("Content-Security-Policy", CSP)
                .header("X-Content-Type-Options", "nosniff")
                .body(html);
    }

    private static ServerResponse text(HttpStatus status, String message) {
        return ServerResponse.status(status)
                .contentType(MediaType.parseMediaType("text/plain;charset=UTF-8"))
                .body(message);
    }

    /** The htmx script, read once from its WebJar (where dashboard.properties says it is). */
    static byte[] readScript() {
        ClassLoader loader = DashboardRoutes.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream(DashboardRuntimeHints.PROPERTIES)) {
            Properties properties = new Properties();
            if (in == null) {
                throw new IllegalStateException("io/wheeltimer/dashboard/dashboard.properties is missing from the"
                        + " wheel-timer-dashboard jar");
            }
            properties.load(in);
            String location = properties.getProperty("htmx");
            try (InputStream script = loader.getResourceAsStream(location)) {
                if (script == null) {
                    throw new IllegalStateException("The dashboard's script " + location + " is not on the class"
                            + " path: the htmx.org WebJar of the version wheel-timer-dashboard was built with is"
                            + " missing (was its version overridden?)");
                }
                return script.readAllBytes();
            }
        } catch (IOException e) {
            throw new IllegalStateException("Could not read the dashboard's script", e);
        }
    }
}

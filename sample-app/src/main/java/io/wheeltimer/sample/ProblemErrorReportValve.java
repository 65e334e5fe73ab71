package io.wheeltimer.sample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.http.HttpStatus;

/**
 * Tomcat's own error report (requests it rejects before any servlet, such as {@code %2F} or {@code %00}
 * in a path, and empty error responses) as a problem detail instead of an HTML page.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        HttpStatus known = HttpStatus.resolve(status);
        String json = Problems.json(status, known != null ? known.getReasonPhrase() : "Error", null, null);
        try {
            response.setContentType(Problems.MEDIA_TYPE);
            response.setCharacterEncoding("UTF-8");
            response.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
            response.finishResponse();
        } catch (IOException | IllegalStateException e) {
            // the client has gone or the response is already on its way; nothing more to say
        }
        response.getCoyoteResponse().action(ActionCode.CLOSE, null);
    }
}

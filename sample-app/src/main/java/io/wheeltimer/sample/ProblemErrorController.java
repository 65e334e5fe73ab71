package io.wheeltimer.sample;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The servlet container's error page ({@code /error}, reached by errors outside Spring MVC's handlers,
 * such as a filter's failure) as a problem detail instead of Boot's default error JSON.
 */
@RestController
class ProblemErrorController implements ErrorController {

    @RequestMapping("/error")
    ResponseEntity<String> error(HttpServletRequest request) {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i && i >= 400 ? i : 500;
        HttpStatus known = HttpStatus.resolve(status);
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(Problems.json(
                        status,
                        known != null ? known.getReasonPhrase() : "Error",
                        null,
                        uri != null ? uri.toString() : null));
    }
}

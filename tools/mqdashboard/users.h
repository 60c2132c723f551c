// Users: who may open the dashboard, when it is started with --users FILE — rocketmq-dashboard's
// users.properties format, one user per line:
//
//   # name=password[,1]      ",1": an admin, who may also send messages and reset offsets
//   admin=a-long-secret,1
//   watcher=another-secret
//
// Every request then needs HTTP Basic authentication (the browser asks once); a viewer's POST
// actions are refused with 403. Basic authentication sends the password with each request: serve
// the dashboard over HTTPS (--https-cert/--https-key) or only on loopback.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/result.h"

namespace ferry::dashboard {

enum class Access { denied, viewer, admin };

class Users {
 public:
  // Errors name the file and line: a line without '=', an empty name or password, a role other
  // than 1 after the comma, no user at all.
  static Result<Users> read(const std::string& path);

  // The access an Authorization header ("Basic base64(name:password)") grants; denied when it is
  // missing, malformed or wrong. `name` is set to the user's name when one was given.
  Access check(std::string_view authorization, std::string* name) const;

 private:
  struct Entry {
    std::string password;
    bool admin = false;
  };
  std::map<std::string, Entry, std::less<>> users_;
};

}  // namespace ferry::dashboard

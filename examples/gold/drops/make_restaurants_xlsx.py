"""Writes drops/restaurants.xlsx, the head office's Excel list of restaurants (the recipe of the
committed file): python3 drops/make_restaurants_xlsx.py, with openpyxl installed."""

import pathlib

import openpyxl

book = openpyxl.Workbook()
sheet = book.active
sheet.title = "Restaurants"
sheet.append(["Restaurants of the chain, as head office keeps them"])
sheet.append(["restaurant_id", "name", "city", "opened"])
for row in [
    ("R1", "Trattoria Centrale", "Lyon", 2019),
    ("R2", "Da Marco", "Paris", 2021),
    ("R3", "Il Porto", "Marseille", 2023),
]:
    sheet.append(list(row))
book.save(pathlib.Path(__file__).with_name("restaurants.xlsx"))
